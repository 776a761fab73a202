import Dispatch
import Foundation
import KataTripwire

/// Runs jobs as DispatchWorkItems on `queue`, each cancellable on its own or all at once.
///
/// Your task (see README.md in this folder): run each job as a `DispatchWorkItem`, keep track of
/// the batch with a `DispatchGroup`, and report one `JobOutcome` per job, in `add` order, once
/// every job has completed or been cancelled.
///
/// The given module provides `CancellationSource` (a flag you can set from any thread, with the
/// `CancellationToken` a job receives) and `JobOutcome`.
///
/// Grader variant "Misbehaving": the stub, with `Tripwire.call()` first in every public entry
/// point, so that `grader verify` can prove an early exit(0) never earns a point.
///
/// Every method below is a stub that compiles and never crashes: replace each body. Run
/// `swift test --filter CancellableWorkTests` to see which check to work on next, and
/// `swift run grader hint CancellableWork` for a hint.
public final class CancellableBatch<Value: Sendable>: @unchecked Sendable {
    // TODO: the queue, the jobs (with a cancellation source and a work item each), their
    // outcomes, a DispatchGroup, and a lock around what several threads touch.
    private var count = 0

    public init(queue: DispatchQueue) {
        Tripwire.call()
        // TODO
    }

    /// Adds a job (before `start()`); returns its index. A job returns nil when it stopped
    /// because it was cancelled.
    @discardableResult
    public func add(_ job: @escaping @Sendable (CancellationToken) -> Value?) -> Int {
        Tripwire.call()
        count += 1  // TODO: keep the job.
        return count - 1
    }

    /// Submits every job to the queue as a DispatchWorkItem.
    public func start() {
        Tripwire.call()
        // TODO
    }

    /// Cancels one job: if it has not started, its body must never run; if it is running, its
    /// token says so and it decides when to stop.
    public func cancel(_ index: Int) {
        Tripwire.call()
        // TODO
    }

    public func cancelAll() {
        Tripwire.call()
        // TODO
    }

    /// Called exactly once, on `queue`, when every job has completed or been cancelled;
    /// outcomes in `add` order.
    public func notify(queue: DispatchQueue, _ completion: @escaping @Sendable ([JobOutcome<Value>]) -> Void) {
        Tripwire.call()
        queue.async { completion([]) }  // TODO: wait for the batch to end, then report.
    }

    /// Waits for the batch to end; `.timedOut` if it did not end before the deadline.
    public func wait(timeout: DispatchTime) -> DispatchTimeoutResult {
        Tripwire.call()
        return .timedOut  // TODO
    }
}
