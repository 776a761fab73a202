import Foundation

/// The same gate for `Operation`s, built on an `OperationQueue` and its `isSuspended`.
///
/// Your task (see README.md in this folder):
/// - `init` makes a closed gate over a queue that runs one operation at a time, in the order added.
/// - The first `open(granted:)` decides; later calls do nothing. Granted: the operations run.
///   Refused: every operation, waiting or added later (even while another thread is refusing),
///   is cancelled and finishes without running its work.
/// - `pause()` stops the queue from starting more operations; one that is executing runs to its
///   end, and `pause()` does not wait for it. `resume()` ends the pause. Pausing twice is still one
///   pause, and `resume()` never opens a gate that was not opened with `granted: true`.
/// - A gate released while still closed refuses its operations: each one finishes, cancelled.
public final class OperationGate: @unchecked Sendable {
    // TODO: an OperationQueue (maxConcurrentOperationCount = 1, suspended), the gate's state,
    // whether it is paused, and a lock.

    /// A closed gate: operations wait until `open(granted:)`.
    public init() {
        // TODO
    }

    /// Adds `operation`: it runs after those added before it, once the gate is open and not
    /// paused; after a refusal it is cancelled and finishes without running.
    public func addOperation(_ operation: Operation) {
        // TODO: this drops the operation.
    }

    /// The first call decides; later calls do nothing.
    public func open(granted: Bool) {
        // TODO
    }

    /// Operations not yet started wait; the one executing finishes. Does not wait for it.
    public func pause() {
        // TODO
    }

    /// Ends a pause. Never opens a gate that was not opened with access.
    public func resume() {
        // TODO
    }
}
