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

/// A serial queue behind a gate: work waits until someone decides (a permission prompt answered).
///
/// Your task (see README.md in this folder):
/// - `init` makes a closed session. `async` queues work; nothing runs while the gate is closed.
/// - The first `open(granted:)` decides, whatever thread calls it and however many call it at
///   once; later calls do nothing. From then on the work runs on the session's own serial queue,
///   one at a time, in submission order (queued work first, then work submitted later), each
///   work called exactly once: with `.granted`, or with `.refused` after `open(granted: false)`.
/// - A session released while still closed must not crash, must be freed, and tells each queued
///   work `.refused`.
/// - If you use `DispatchQueue.suspend()`: libdispatch counts suspensions. One `resume()` too many
///   traps, and so does releasing a queue that is still suspended.
public final class SessionQueue: @unchecked Sendable {
    // TODO: a private serial queue, the decision (nil while closed), and what protects it.

    /// A closed session: work waits until `open(granted:)`.
    public init(label: String) {
        // TODO
    }

    /// Queues `work`: called once, on the session's queue, in submission order, after the gate
    /// opened, with the decision.
    public func async(_ work: @escaping @Sendable (Access) -> Void) {
        // TODO: this drops the work. Keep it until the gate opens.
    }

    /// Opens the gate. The first call decides; later calls, from any thread, do nothing.
    public func open(granted: Bool) {
        // TODO
    }
}
