import Dispatch
import Foundation
import KataTripwire

// The untouched stub, with `Tripwire.call()` first in every public entry point: `grader verify`
// runs it with each KATA_MISBEHAVE misbehaviour and asserts 0 points.

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
        Tripwire.call()
        self.queue = queue
        self.steps = steps
    }

    /// Starts the chain with `input` and returns at once; `completion` is called once, on `queue`.
    public func start(with input: Int, completion: @escaping @Sendable (ChainOutcome) -> Void) {
        Tripwire.call()
        // TODO: one DispatchWorkItem per step, chained with notify; look at isCancelled there.
    }

    /// Stops the chain: no step starts after this call; the completion says `.cancelled`.
    public func cancel() {
        Tripwire.call()
        // TODO: cancel the work items (a running item finishes anyway).
    }
}
