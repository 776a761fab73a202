import Dispatch
import Foundation

/// Runs only the last of a burst of actions, `delay` after the burst ends (search-as-you-type).
///
/// Grader variant "SubtleRace": the reference solution's batch, and its debouncer with the lock
/// removed. Two threads that call `schedule` at the same moment can both cancel the same old item
/// and both store a new one, so one new item is never cancelled and runs: the burst check meets
/// that only in some runs. The unprotected `pending` is a data race that ThreadSanitizer reports
/// every time.
///
/// Reference solution: every `schedule` cancels the pending work item and schedules a new one
/// with `asyncAfter`. The pending item is shared by every thread that schedules, so it lives
/// behind a lock: without it, two threads can both cancel the same old item and both store a
/// new one, and one of the two new items is never cancelled.
public final class Debouncer: @unchecked Sendable {
    private let delay: DispatchTimeInterval
    private let queue: DispatchQueue
    private var pending: DispatchWorkItem?

    public init(delay: DispatchTimeInterval, queue: DispatchQueue) {
        self.delay = delay
        self.queue = queue
    }

    /// Cancels the pending action, if any, and runs `action` after `delay` unless another
    /// `schedule` or `cancel` comes first.
    public func schedule(_ action: @escaping @Sendable () -> Void) {
        let item = DispatchWorkItem(block: action)
        pending?.cancel()
        pending = item
        queue.asyncAfter(deadline: .now() + delay, execute: item)
    }

    /// Nothing pending runs.
    public func cancel() {
        pending?.cancel()
        pending = nil
    }
}
