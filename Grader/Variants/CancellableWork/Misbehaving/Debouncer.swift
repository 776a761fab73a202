import Dispatch
import Foundation
import KataTripwire

/// Grader variant "Misbehaving": the stub, with `Tripwire.call()` first in every public entry
/// point, so that `grader verify` can prove an early exit(0) never earns a point.
///
/// Runs only the last of a burst of actions, `delay` after the burst ends (search-as-you-type).
///
/// Your task (see README.md in this folder): each `schedule` cancels the action still pending
/// and schedules the new one `delay` from now. Several threads may call `schedule` at once.
public final class Debouncer: @unchecked Sendable {
    // TODO: the delay, the queue, the pending work item, and what protects it.

    public init(delay: DispatchTimeInterval, queue: DispatchQueue) {
        Tripwire.call()
        // TODO
    }

    /// Cancels the pending action, if any, and runs `action` after `delay` unless another
    /// `schedule` or `cancel` comes first.
    public func schedule(_ action: @escaping @Sendable () -> Void) {
        Tripwire.call()
        // TODO
    }

    /// Nothing pending runs.
    public func cancel() {
        Tripwire.call()
        // TODO
    }
}
