import Foundation

/// What `grader verify` builds into its misbehaving implementations (`Grader/Variants/<Exercise>/
/// Misbehaving/`): each public entry point first calls `Tripwire.call()`, which misbehaves at
/// the moment `KATA_MISBEHAVE` names, so that verify can prove that no misbehaviour earns a point:
/// - `exit-on-first-call`: `exit(0)` on the first call;
/// - `exit-on-later-call-from-another-thread`: `exit(0)` on the first call that comes from another
///   thread than the first call did.
public enum Tripwire {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var firstCaller: Thread?

    public static func call() {
        switch ProcessInfo.processInfo.environment["KATA_MISBEHAVE"] {
        case "exit-on-first-call":
            exit(0)
        case "exit-on-later-call-from-another-thread":
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
