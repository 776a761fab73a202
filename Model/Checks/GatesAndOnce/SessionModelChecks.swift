#if KATA_MODEL
import KataModel

/// The systematic checks of GatesAndOnce: two threads open one SessionQueue's gate at once; two
/// threads ask one Lazy for its value at once.
public let modelChecks: [ModelCheck] = [
    ModelCheck("two openers", zh: "两个线程同时 open", stress: ["openFromManyThreads", "decisionOutlivesTheSession"]) {
        let session = SessionQueue(label: "session")
        let told = Told()
        session.async { access in told.accesses.append(access) }
        let openers = [true, false].enumerated().map { index, granted in
            Model.spawn("opener \(index + 1)") { session.open(granted: granted) }
        }
        Model.join(openers)
        session.async { access in told.accesses.append(access) }
        Model.joinAll()
        Model.check(
            told.accesses.count == 2 && Set(told.accesses).count == 1,
            "two works queued around two open() calls were told \(told.accesses): each must be told once, and both the same",
            zh: "两次 open() 前后排队的两个任务被告知 \(told.accesses)：每个任务只应被告知一次，且两者相同")
    },
    lazyCheck,
]

/// Lazy's check: the initializer runs once, however the two readers interleave, and both get
/// its value. The initializer itself has a switch point, as real work would.
let lazyCheck = ModelCheck("two readers of a Lazy", zh: "两个线程读取同一个 Lazy", stress: ["onceUnderContention"]) {
    let runs = Told()
    let lazy = Lazy<Int> {
        Model.point("initializer runs")
        runs.runs += 1
        return 42
    }
    let seen = Told()
    let readers = (1...2).map { index in
        Model.spawn("reader \(index)") { seen.values.append((try? lazy.value) ?? -1) }
    }
    Model.join(readers)
    Model.check(
        runs.runs == 1 && seen.values == [42, 42],
        "two readers of one Lazy ran its initializer \(runs.runs) times and got \(seen.values) (once, and [42, 42])",
        zh: "同一个 Lazy 的两个读者让初始化器运行了 \(runs.runs) 次，得到 \(seen.values)（应为 1 次和 [42, 42]）")
}

final class Told: @unchecked Sendable {
    var accesses: [Access] = []
    var runs = 0
    var values: [Int] = []
}
#endif
