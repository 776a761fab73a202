import Foundation

/// Given, finished: the cancellation flag a batch hands to each job.
///
/// A `CancellationSource` belongs to whoever may cancel (the batch); the `CancellationToken` it
/// hands out is what a running job checks. Cancelling is cooperative: setting the flag stops
/// nothing by itself, the job has to look at it.
public final class CancellationSource: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    public init() {}

    /// Sets the flag; safe from any thread, any number of times.
    public func cancel() {
        lock.lock()
        cancelled = true
        lock.unlock()
    }

    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }

    /// The read-only view a job receives.
    public var token: CancellationToken { CancellationToken(source: self) }
}

/// What a running job checks to learn that it was cancelled.
public struct CancellationToken: Sendable {
    let source: CancellationSource

    public var isCancelled: Bool { source.isCancelled }
}

/// What became of one job of a batch.
public enum JobOutcome<Value: Sendable>: Sendable {
    /// The job ran to the end and returned this value.
    case completed(Value)
    /// The job's body never ran.
    case cancelledBeforeStart
    /// The body ran, saw the token, and stopped (returned nil).
    case cancelledWhileRunning
}

extension JobOutcome: Equatable where Value: Equatable {}
