import Dispatch
import Foundation
import Testing

/// Waits of a check that never hold a thread of Swift's cooperative pool: on 2 cores a check
/// parked in a blocking wait starves the other checks. Learner code that might block its caller
/// runs on a dedicated thread, watched from here with a deadline.
public enum Await {
    /// Suspends the check for `seconds` without blocking a thread.
    public static func pause(_ seconds: Double) async {
        try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }

    /// Waits until `condition` holds (true). Gives up at once with `hopeless`'s reason when the
    /// check can see that the event will never come, or after `seconds` with "deadlock suspected".
    @discardableResult
    public static func until(
        seconds: Double = Deadline.promptSeconds, in place: String, waitingFor what: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        unless hopeless: () -> String? = { nil }, _ condition: () -> Bool
    ) async -> Bool {
        let end = DispatchTime.now() + seconds
        while true {
            if condition() { return true }
            if let reason = hopeless() {
                if condition() { return true }  // one last look: it may have come just now
                Issue.record(Comment(rawValue: reason), sourceLocation: sourceLocation)
                return false
            }
            if DispatchTime.now() >= end {
                DeadlockReport.record(in: place, waitingFor: what, seconds: seconds, hint: hint, sourceLocation: sourceLocation)
                return false
            }
            await pause(0.001)
        }
    }

    /// True if `condition` comes true within `seconds`: how a check proves that something did
    /// not happen (yet).
    public static func happens(within seconds: Double, _ condition: () -> Bool) async -> Bool {
        let end = DispatchTime.now() + seconds
        while !condition() {
            if DispatchTime.now() >= end { return false }
            await pause(0.001)
        }
        return true
    }

    /// `call` for learner code that returns nothing: true if it returned in time.
    public static func returns(
        _ what: String, seconds: Double = Deadline.promptSeconds, in place: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: @escaping @Sendable () -> Void
    ) async -> Bool {
        await call(what, seconds: seconds, in: place, hint: hint, sourceLocation: sourceLocation) { () -> Bool in body(); return true } != nil
    }

    /// Calls learner code on a dedicated thread and waits at most `seconds` for it to return.
    /// Returns its value, or nil (recorded as "deadlock suspected in <place>") if it did not
    /// return: the thread is left behind, and the check goes on.
    public static func call<Value: Sendable>(
        _ what: String, seconds: Double = Deadline.promptSeconds, in place: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: @escaping @Sendable () -> Value
    ) async -> Value? {
        let result = Locked<Value?>(nil)
        let returned = Locked(false)
        let thread = Thread {
            let value = body()
            result.withLock { $0 = value }
            returned.withLock { $0 = true }
        }
        thread.stackSize = 1 << 20
        thread.start()
        guard await until(seconds: seconds, in: place, waitingFor: "\(what) returning", hint: hint, sourceLocation: sourceLocation, { returned.current }) else {
            return nil
        }
        return result.current
    }
}

extension Await {
    /// Inside an isolated check (a child process, where blocking is harmless): runs learner code
    /// on a dedicated thread and waits at most `seconds` for it to return; false (recorded as
    /// "deadlock suspected in <place>") if it did not.
    @discardableResult
    public static func blockingCall(
        _ what: String, seconds: Double = Deadline.promptSeconds, in place: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation, _ body: @escaping @Sendable () -> Void
    ) -> Bool {
        Deadline.wait(for: ThreadGang.spawn(body), seconds: seconds, in: place, waitingFor: "\(what) returning", hint: hint, sourceLocation: sourceLocation)
    }
}

extension Await {
    /// Runs `body(index)` on `count` dedicated threads released together from a start barrier,
    /// and waits for all of them to return, without blocking a thread, until nothing has moved
    /// for `seconds` (see `ProgressDeadline`).
    @discardableResult
    public static func gang(
        _ count: Int, seconds: Double = Deadline.promptSeconds, in place: String, waitingFor what: String,
        sourceLocation: SourceLocation = #_sourceLocation, _ body: @escaping @Sendable (_ index: Int) -> Void
    ) async -> Bool {
        let start = StartBarrier(parties: count)
        let arrived = Locked(0)
        let returned = Locked(0)
        let patience = ProgressDeadline.defaultLimit(for: seconds)
        for index in 0..<count {
            let thread = Thread {
                arrived.withLock { $0 += 1 }
                start.arrive(seconds: patience)
                body(index)
                returned.withLock { $0 += 1 }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        // Waits on while threads arrive or return (see ProgressDeadline).
        return await until(quiet: seconds, in: place, waitingFor: what, sourceLocation: sourceLocation,
                           progress: { arrived.current + returned.current }) { returned.current == count }
    }
}

/// Tells whether the closures a check handed to learner code are still held by anyone: a
/// closure that no one holds any more can never be called, so a check waiting for it to run
/// can fail at once instead of after its deadline.
public final class Liveness: @unchecked Sendable {
    private final class Tag: Sendable {}
    private struct WeakTag { weak var tag: Tag? }
    private let tags = Locked([String: WeakTag]())

    public init() {}

    /// `closure`, tied to a tag named `name`: the tag lives as long as the closure does.
    public func tie<A, R>(_ name: String, _ closure: @escaping @Sendable (A) -> R) -> @Sendable (A) -> R {
        let tag = Tag()
        tags.withLock { $0[name] = WeakTag(tag: tag) }
        return { argument in withExtendedLifetime(tag) { closure(argument) } }
    }

    /// `tie` for a closure without arguments.
    public func tie(_ name: String, _ closure: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let tag = Tag()
        tags.withLock { $0[name] = WeakTag(tag: tag) }
        return { withExtendedLifetime(tag) { closure() } }
    }

    /// True while someone still holds the closure tied as `name`.
    public func isHeld(_ name: String) -> Bool {
        tags.withLock { $0[name]?.tag != nil }
    }
}
