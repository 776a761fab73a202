import Dispatch
import Foundation

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
    private let lock = NoLock()
    private var items: [DispatchWorkItem] = []
    private var cancelled = false
    private var value = 0

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
            // notify fires also for an item cancelled before it ran: look before going on.
            item.notify(queue: queue) { [self] in
                lock.lock()
                let stop = cancelled || item.isCancelled
                let result = value
                lock.unlock()
                if stop {
                    completion(.cancelled)
                } else if index + 1 < items.count {
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
        let items = self.items
        lock.unlock()
        items.forEach { $0.cancel() }
    }
}
