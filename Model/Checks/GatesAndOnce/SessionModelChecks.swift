#if KATA_MODEL
import KataModel

/// The systematic checks of GatesAndOnce's SessionQueue: two threads open one gate at once.
public let modelChecks: [ModelCheck] = [
    ModelCheck("two openers") {
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
]

final class Told: @unchecked Sendable {
    var accesses: [Access] = []
}
#endif
