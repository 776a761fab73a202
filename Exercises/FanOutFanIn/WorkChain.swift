import Dispatch
import Foundation

/// How a chain ended: the last step's value, or cancelled.
public enum ChainOutcome: Equatable, Sendable {
    case finished(Int)
    case cancelled
}

/// Steps run one after another on a queue, each taking the value of the step before.
///
/// Your task (see README.md in this folder): make each step a `DispatchWorkItem` and start the
/// next one from the item's `notify(queue:execute:)`. `cancel()` stops the chain: the step that is
/// running may finish, but no later step starts, and the completion says `.cancelled`.
public final class WorkChain: @unchecked Sendable {
    private let queue: DispatchQueue
    private let steps: [@Sendable (Int) -> Int]

    public init(queue: DispatchQueue, steps: [@Sendable (Int) -> Int]) {
        self.queue = queue
        self.steps = steps
    }

    /// Starts the chain with `input` and returns at once; `completion` is called once, on `queue`.
    public func start(with input: Int, completion: @escaping @Sendable (ChainOutcome) -> Void) {
        // TODO: one DispatchWorkItem per step, chained with notify; look at isCancelled there.
    }

    /// Stops the chain: no step starts after this call; the completion says `.cancelled`.
    public func cancel() {
        // TODO: cancel the work items (a running item finishes anyway).
    }
}
