import Dispatch
import Foundation

/// What a piece of work submitted to a `SessionQueue` is told when its turn comes.
public enum Access: Sendable, Equatable {
    /// The gate was opened with `open(granted: true)`: do the work.
    case granted
    /// The gate was opened with `open(granted: false)`, or the session was released while still
    /// closed: do not do the work (clean up, tell the user).
    case refused
}

/// A serial queue behind a gate: the camera pattern of the course material.
///
/// Reference solution. The work runs on a private serial `DispatchQueue` that is created
/// suspended, so `async` queues blocks that wait behind the gate in submission order, and blocks
/// submitted after the gate opened simply join the same line. The decision (granted or refused)
/// lives in a small box that the blocks share; each block reads it when it runs.
///
/// libdispatch counts suspensions: `resume()` must balance `suspend()` exactly. A second
/// `resume()` traps ("over-resume"), and so does releasing a queue that is still suspended. So
/// the first `open` (decided under a lock, whatever the number of threads calling it) resumes the
/// queue once, and `deinit` resumes a queue that nobody opened, after deciding `.refused`, so that
/// the queued blocks run, are told, and let the queue go.
public final class SessionQueue: @unchecked Sendable {
    /// The decision, shared by the session and by every block it queued. The blocks capture this
    /// box, never the session: a session released while closed must be freed. (A `Mutex` would do
    /// as well as the `NSLock`.)
    private final class Decision: @unchecked Sendable {
        private let lock = NSLock()
        private var access: Access?

        /// The decision, nil while the gate is closed.
        var current: Access? {
            lock.lock()
            defer { lock.unlock() }
            return access
        }

        /// Sets the decision if none was made yet; true for the one call that made it.
        func decide(_ value: Access) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            guard access == nil else { return false }
            access = value
            return true
        }
    }

    private let queue: DispatchQueue
    private let decision = Decision()

    /// A closed session: work waits until `open(granted:)`.
    public init(label: String) {
        queue = DispatchQueue(label: label)
        queue.suspend()
    }

    /// Queues `work`. It runs on the session's queue, after every work submitted before it, one at
    /// a time, and is called exactly once: with `.granted` once the gate opened with access, with
    /// `.refused` once it opened without (or the session was released closed).
    public func async(_ work: @escaping @Sendable (Access) -> Void) {
        let decision = self.decision
        queue.async {
            // The queue was resumed only after the decision was set, so it is never nil here.
            work(decision.current ?? .refused)
        }
    }

    /// Opens the gate: the first call decides, from any thread; later calls do nothing.
    public func open(granted: Bool) {
        if decision.decide(granted ? .granted : .refused) {
            queue.resume()  // exactly once: balances the suspend() in init
        }
    }

    deinit {
        // Still closed: a suspended queue must not be released (libdispatch traps). Refuse what
        // waits, and resume the queue so that those blocks run and tell their owners.
        if decision.decide(.refused) {
            queue.resume()
        }
    }
}
