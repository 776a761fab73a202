import Foundation

/// What `grader verify` builds into its "exits early" implementations: each public entry point
/// of such an implementation calls `Tripwire.call()` first, and the process exits with status 0
/// at the moment `KATA_EXIT_WHEN` names, so that verify can prove that an early `exit(0)` never
/// earns a point:
/// - `first-call`: on the first call;
/// - `later-call-from-another-thread`: on the first call that comes from another thread than the
///   first call did.
public enum Tripwire {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var firstCaller: Thread?

    public static func call() {
        switch ProcessInfo.processInfo.environment["KATA_EXIT_WHEN"] {
        case "first-call":
            exit(0)
        case "later-call-from-another-thread":
            lock.lock()
            if firstCaller == nil { firstCaller = Thread.current }
            let fromAnotherThread = firstCaller !== Thread.current
            lock.unlock()
            if fromAnotherThread { exit(0) }
        default:
            break
        }
    }
}
