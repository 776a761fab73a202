import Dispatch
import Foundation
import KataTripwire

// The untouched stub, with `Tripwire.call()` first in every public entry point: `grader verify`
// runs it with each KATA_MISBEHAVE misbehaviour and asserts 0 points.

/// Why a signal cannot be watched.
public enum SignalWatchError: Error, Equatable {
    /// SIGKILL and SIGSTOP can be neither caught nor ignored: a source for them never fires.
    case cannotBeCaught(Int32)
}

/// Reacts to a Unix signal on a queue, through a signal `DispatchSource`.
///
/// Your task: refuse the signals that cannot be caught; set the signal's default action aside
/// (a source only observes a signal); call `handler` on `queue` for each delivery.
public final class SignalWatcher: @unchecked Sendable {
    /// Calls `handler` on `queue` each time the process receives `signal`.
    public init(signal: Int32, queue: DispatchQueue, handler: @escaping @Sendable () -> Void) throws {
        Tripwire.call()
        // TODO
    }

    /// Stops watching and gives the signal back its default action. Safe to call twice.
    public func cancel() {
        Tripwire.call()
        // TODO
    }
}
