import Dispatch
import Foundation

/// Runs jobs as DispatchWorkItems on `queue`, each cancellable on its own or all at once.
///
/// Grader variant "Unsynchronized": the reference solution with every lock removed
/// (the given CancellationSource keeps its own).
///
/// Reference solution. Each job is a `DispatchWorkItem` submitted with `queue.async(group:)`:
/// Dispatch itself enters the group and leaves it once the item is over, whether it ran or was
/// cancelled before it started. The batch never calls `leave()` by hand, so a job cancelled
/// while it runs is still counted exactly once, when its body returns.
public final class CancellableBatch<Value: Sendable>: @unchecked Sendable {
    private struct Job {
        let body: @Sendable (CancellationToken) -> Value?
        let cancellation = CancellationSource()
        var item: DispatchWorkItem?
        var outcome: JobOutcome<Value> = .cancelledBeforeStart
    }

    private let queue: DispatchQueue
    private var jobs: [Job] = []
    private var started = false
    private var outcomes: [JobOutcome<Value>]?
    private var waiting: [(DispatchQueue, @Sendable ([JobOutcome<Value>]) -> Void)] = []
    private let group = DispatchGroup()
    /// Entered once at init and left once when the batch ends: what `wait` waits for.
    private let ended = DispatchGroup()

    public init(queue: DispatchQueue) {
        self.queue = queue
        ended.enter()
    }

    /// Adds a job; returns its index. A job returns nil when it stopped because it was cancelled.
    /// Jobs are added before `start()`; a job added later is not run and its index is -1.
    @discardableResult
    public func add(_ job: @escaping @Sendable (CancellationToken) -> Value?) -> Int {
        guard !started else { return -1 }
        jobs.append(Job(body: job))
        return jobs.count - 1
    }

    /// Submits every job to the queue. Calling it again does nothing.
    public func start() {
        guard !started else { return }
        started = true
        var items: [DispatchWorkItem] = []
        for index in jobs.indices {
            let item = DispatchWorkItem { [self] in run(index) }
            jobs[index].item = item
            items.append(item)
        }
        for item in items { queue.async(group: group, execute: item) }
        group.notify(queue: queue) { [self] in finishBatch() }
    }

    private func run(_ index: Int) {
        let job = jobs[index]
        // Cancelled after the item was submitted but before it ran: never call the body.
        if job.cancellation.isCancelled { return }
        let value = job.body(job.cancellation.token)
        let outcome: JobOutcome<Value> = value.map { .completed($0) } ?? .cancelledWhileRunning
        jobs[index].outcome = outcome
    }

    public func cancel(_ index: Int) {
        guard jobs.indices.contains(index) else { return }
        let job = jobs[index]
        job.cancellation.cancel()
        job.item?.cancel()  // stops it only if it has not started; a running body sees the token
    }

    public func cancelAll() {
        let count = jobs.count
        for index in 0..<count { cancel(index) }
    }

    /// Called exactly once, on `queue`, when every job has completed or been cancelled;
    /// outcomes in `add` order. Registering after the batch ended still calls it, once.
    public func notify(queue: DispatchQueue, _ completion: @escaping @Sendable ([JobOutcome<Value>]) -> Void) {
        if let outcomes {
            queue.async { completion(outcomes) }
            return
        }
        waiting.append((queue, completion))
    }

    /// Waits for the batch to end; `.timedOut` if it did not end before the deadline.
    public func wait(timeout: DispatchTime) -> DispatchTimeoutResult {
        ended.wait(timeout: timeout)
    }

    private func finishBatch() {
        let result = jobs.map(\.outcome)
        outcomes = result
        let toCall = waiting
        waiting = []
        for (queue, completion) in toCall { queue.async { completion(result) } }
        ended.leave()
    }
}
