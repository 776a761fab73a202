#if KATA_MODEL
import KataModel

/// The systematic checks of GatesAndOnce: two threads open one SessionQueue's gate at once; two
/// threads ask one Lazy for its value at once; a Lazy whose initializer fails once; refused work
/// that queues a retry; work that runs after its granted session was released. (New checks go at
/// the end: `ExerciseModelTests` names them by position.)
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
            "two works queued around two open() calls were told \(told.told): each must be told once, and both the same",
            zh: "两次 open() 前后排队的两个任务被告知 \(told.told)：每个任务只应被告知一次，且两者相同")
    },
    lazyCheck,
    failedInitializerCheck,
    refusedRetryCheck,
    releasedAfterGrantCheck,
]

/// The first run of the initializer throws, the next gives 42. Whoever waited for the failed run
/// must wake and try again (or get the error): nobody sleeps on, and a later read gets 42 after
/// exactly two runs.
let failedInitializerCheck = ModelCheck(
    "a failed initializer, two readers", zh: "初始化器失败一次，两个读者", stress: ["failureIsNotCached"]
) {
    let runs = Told()
    let lazy = Lazy<Int> {
        Model.point("initializer runs")
        runs.runs += 1
        if runs.runs == 1 { throw Refusal() }
        return 42
    }
    let seen = Told()
    let readers = (1...2).map { index in
        Model.spawn("reader \(index)") { seen.values.append((try? lazy.value) ?? -1) }
    }
    Model.join(readers)
    let after = (try? lazy.value) ?? -1
    Model.check(
        runs.runs == 2 && after == 42 && seen.values.allSatisfy { $0 == 42 || $0 == -1 },
        "a Lazy whose initializer throws once: the readers got \(seen.values) (-1: the error), a later read got \(after), and the initializer ran \(runs.runs) times (twice: the failure is not kept, the next read tries again)",
        zh: "初始化器第一次抛出错误的 Lazy：两个读者得到 \(seen.values)（-1 表示错误），之后的读取得到 \(after)，初始化器运行了 \(runs.runs) 次（应为 2 次：失败不会被保存，下一次读取重新尝试）")
}

/// Refused work runs on the session's queue, not inside `open(granted: false)`: it may queue a
/// retry and call `open` again, and every `open` returns.
let refusedRetryCheck = ModelCheck(
    "refused work queues a retry", zh: "被拒绝的工作再排一个重试", stress: ["refusedWorkRunsOnTheQueue"]
) {
    let session = SessionQueue(label: "session")
    let told = Told()
    session.async { access in
        told.accesses.append(access)
        session.async { retry in told.accesses.append(retry) }
        session.open(granted: true)
    }
    let opener = Model.spawn("opener") { session.open(granted: false) }
    Model.join(opener)
    Model.joinAll()
    Model.check(
        told.accesses == [.refused, .refused],
        "work refused by open(granted: false) queued a retry and called open(granted: true): the two works were told \(told.told) ([refused, refused]: the decision is made once)",
        zh: "被 open(granted: false) 拒绝的工作又排了一个重试并调用 open(granted: true)：两个工作被告知 \(told.told)（应为 [refused, refused]：决定只做一次）")
}

/// Work queued before a granted `open` hears `.granted`, also when it runs after the session
/// was released.
let releasedAfterGrantCheck = ModelCheck(
    "granted, then released", zh: "授权之后会话被释放", stress: ["decisionOutlivesTheSession"]
) {
    let told = Told()
    let opener = Model.spawn("opener") {
        let session = SessionQueue(label: "session")
        session.async { access in told.accesses.append(access) }
        session.open(granted: true)
    }
    Model.join(opener)
    Model.joinAll()
    Model.check(
        told.accesses == [.granted],
        "work queued before open(granted: true) was told \(told.told) ([granted], also when it runs after its session was released)",
        zh: "在 open(granted: true) 之前排队的工作被告知 \(told.told)（应为 [granted]，即使它在会话被释放之后才运行）")
}

struct Refusal: Error {}

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
    /// `[granted, refused]`, without the module's name.
    var told: String { "[" + accesses.map { "\($0)" }.joined(separator: ", ") + "]" }
    var runs = 0
    var values: [Int] = []
}
#endif
