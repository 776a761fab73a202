#if KATA_MODEL
import Dispatch
import KataModel

/// The systematic checks of CancellableWork's Debouncer: a burst of `schedule` calls from two
/// threads while an earlier action is pending runs exactly one action, a latest one. The queue
/// is a twin `DispatchQueue` (the modeled module's `init(queue:)` takes the twin), and its delay
/// passes in virtual time once every thread waits.
public let modelChecks: [ModelCheck] = [
    ModelCheck("burst from two threads", zh: "两个线程的一串调度", stress: ["burstRunsOnlyTheLast"]) {
        let queue = DispatchQueue(label: "debounce")
        let debouncer = Debouncer(delay: .milliseconds(50), queue: queue)
        let fired = Fired()
        debouncer.schedule { fired.names.append("first") }
        let callers = ["A", "B"].map { name in
            Model.spawn("caller \(name)") { debouncer.schedule { fired.names.append(name) } }
        }
        Model.join(callers)
        Model.joinAll()
        Model.check(
            fired.names.count == 1 && fired.names.allSatisfy { $0 != "first" },
            "a burst of three schedule calls (the first, then A and B at once) ran \(fired.names): exactly one, one of the last two, must run",
            zh: "连续三次 schedule 调用（先 first，再 A 和 B 同时）运行了 \(fired.names)：应只运行一个，且是最后两个之一")
    },
]

final class Fired: @unchecked Sendable {
    var names: [String] = []
}
#endif
