import Dispatch
import Foundation
import Testing

/// Bounded waits that turn a miss into a failed check instead of a hung test.
public enum Deadline {
    /// The default patience of a check: far above what a correct solution needs, even with the
    /// other core busy, and short enough that a deadlocked exercise is reported quickly.
    public static let defaultSeconds: Double = 5

    /// The patience for something a correct solution does within milliseconds (a queue
    /// starting an operation, a job starting): generous even on a loaded machine, and short
    /// enough that an untouched stub, which never does it, fails quickly.
    public static let promptSeconds: Double = 3

    /// Waits for `semaphore`; on a miss records "deadlock suspected in <place>" and returns false.
    @discardableResult
    public static func wait(
        for semaphore: DispatchSemaphore, seconds: Double = defaultSeconds,
        in place: String, waitingFor what: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        if semaphore.wait(timeout: .now() + seconds) == .success { return true }
        DeadlockReport.record(in: place, waitingFor: what, seconds: seconds, hint: hint, sourceLocation: sourceLocation)
        return false
    }

    /// Waits for `group`; on a miss records "deadlock suspected in <place>" and returns false.
    @discardableResult
    public static func wait(
        for group: DispatchGroup, seconds: Double = defaultSeconds,
        in place: String, waitingFor what: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        if group.wait(timeout: .now() + seconds) == .success { return true }
        DeadlockReport.record(in: place, waitingFor: what, seconds: seconds, hint: hint, sourceLocation: sourceLocation)
        return false
    }

    /// Waits for `semaphore`, but gives up as soon as `hopeless` returns a reason: for a check
    /// that can see at once that the event will never come (start() returned and main() never
    /// ran), so an untouched stub fails in milliseconds instead of after the whole deadline.
    /// The reason is recorded as the failure. Returns true when the semaphore was signalled.
    @discardableResult
    public static func wait(
        for semaphore: DispatchSemaphore, seconds: Double = promptSeconds,
        in place: String, waitingFor what: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation, unless hopeless: () -> String?
    ) -> Bool {
        let end = DispatchTime.now() + seconds
        while DispatchTime.now() < end {
            if semaphore.wait(timeout: .now() + 0.002) == .success { return true }
            if let reason = hopeless() {
                // One last look: the event may have come just now.
                if semaphore.wait(timeout: .now()) == .success { return true }
                Issue.record(Comment(rawValue: reason), sourceLocation: sourceLocation)
                return false
            }
        }
        DeadlockReport.record(in: place, waitingFor: what, seconds: seconds, hint: hint, sourceLocation: sourceLocation)
        return false
    }

    /// Polls `condition` every millisecond until it holds; on a miss records the deadlock
    /// report and returns false. For states that nothing signals (an operation's `isFinished`).
    /// Gives up at once with `hopeless`'s reason (recorded as the failure) when the event can no
    /// longer come, so a wrong attempt fails in milliseconds instead of at the deadline.
    @discardableResult
    public static func waitUntil(
        seconds: Double = defaultSeconds, in place: String, waitingFor what: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        unless hopeless: () -> String? = { nil }, _ condition: () -> Bool
    ) -> Bool {
        let end = DispatchTime.now() + seconds
        while !condition() {
            if let reason = hopeless() {
                // One last look: the event may have come just now.
                if condition() { return true }
                Issue.record(Comment(rawValue: reason), sourceLocation: sourceLocation)
                return false
            }
            if DispatchTime.now() >= end {
                DeadlockReport.record(in: place, waitingFor: what, seconds: seconds, hint: hint, sourceLocation: sourceLocation)
                return false
            }
            usleep(1_000)
        }
        return true
    }

    /// True if `condition` comes true within `seconds`, polled every half millisecond; records
    /// nothing. How a check proves that something did not happen (yet). Blocks its thread: for
    /// isolated bodies and dedicated threads (`Await.happens` is the async one).
    public static func happens(within seconds: Double, _ condition: () -> Bool) -> Bool {
        let end = DispatchTime.now() + seconds
        while !condition() {
            if DispatchTime.now() >= end { return false }
            usleep(500)
        }
        return true
    }
}
