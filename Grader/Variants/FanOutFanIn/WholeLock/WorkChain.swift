import Dispatch
import Foundation

// The reference, except that each step's notify starts the next one without looking whether the
// chain was cancelled, and cancel() cancels only the step that runs.

/// How a chain ended: the last step's value, or cancelled.
public enum ChainOutcome: Equatable, Sendable {
    case finished(Int)
    case cancelled
}

/// Steps run one after another on `queue`, each a `DispatchWorkItem` that takes the value of the
/// step before; each item's `notify` starts the next. `cancel()` stops the chain: the step that
/// is running finishes (a work item cannot be stopped once it runs), and no later step starts.
public final class WorkChain: @unchecked Sendable {
    private let queue: DispatchQueue
    private let steps: [@Sendable (Int) -> Int]
    private let lock = NSLock()
    private var items: [DispatchWorkItem] = []
    private var cancelled = false
    private var value = 0
    private var current = 0

    public init(queue: DispatchQueue, steps: [@Sendable (Int) -> Int]) {
        self.queue = queue
        self.steps = steps
    }

    /// Starts the chain with `input` and returns at once; `completion` is called once, on `queue`.
    public func start(with input: Int, completion: @escaping @Sendable (ChainOutcome) -> Void) {
        lock.lock()
        value = input
        items = steps.map { step in
            DispatchWorkItem { [self] in
                lock.lock(); let before = value; lock.unlock()
                let after = step(before)
                lock.lock(); value = after; lock.unlock()
            }
        }
        let items = self.items
        let cancelledBeforeStart = cancelled
        lock.unlock()
        guard !cancelledBeforeStart else { return queue.async { completion(.cancelled) } }
        guard let first = items.first else { return queue.async { completion(.finished(input)) } }
        for (index, item) in items.enumerated() {
            item.notify(queue: queue) { [self] in
                lock.lock()
                current = index + 1
                let result = value
                lock.unlock()
                if index + 1 < items.count {
                    queue.async(execute: items[index + 1])
                } else {
                    completion(.finished(result))
                }
            }
        }
        queue.async(execute: first)
    }

    /// Stops the chain: no step starts after this call; the completion says `.cancelled`.
    public func cancel() {
        lock.lock()
        cancelled = true
        let item = items.indices.contains(current) ? items[current] : nil
        lock.unlock()
        item?.cancel()
    }
}
