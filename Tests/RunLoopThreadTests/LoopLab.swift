import CoreFoundation
import Dispatch
import Foundation
import KataTestSupport
import RunLoopThread
import Testing

/// What a check learns about the thread a block ran on, read inside the block.
struct Sighting: Sendable {
    /// `ObjectIdentifier(Thread.current)`: threads are told apart by identity, never by name
    /// (`Thread.name` reads back the process name on Linux).
    let thread: ObjectIdentifier
    let isMainThread: Bool
    /// `RunLoop.current.currentMode`: nil when no run loop is running on that thread (a dispatch
    /// queue's worker thread, or a thread whose loop has ended).
    let mode: String?
    /// Nanoseconds of CPU time this thread has used so far.
    let cpu: UInt64
    let at: UInt64

    /// Reads them on the current thread: call it inside a performed block or a timer.
    static func here() -> Sighting {
        Sighting(thread: ObjectIdentifier(Thread.current), isMainThread: Thread.isMainThread,
                 mode: RunLoop.current.currentMode?.rawValue, cpu: LoopLab.threadCPUNanoseconds(), at: LoopLab.now)
    }
}

/// A `Thread` that a check keeps to ask whether it has ended (`isFinished`).
final class ThreadHandle: @unchecked Sendable {
    let thread: Thread
    init(_ thread: Thread) { self.thread = thread }
    var id: ObjectIdentifier { ObjectIdentifier(thread) }
    var hasEnded: Bool { thread.isFinished }
}

/// A weak reference a check reads from any thread.
final class WeakLoop: @unchecked Sendable {
    private let lock = NSLock()
    private weak var loop: RunLoopThread?
    init(_ loop: RunLoopThread?) { self.loop = loop }
    var value: RunLoopThread? { lock.lock(); defer { lock.unlock() }; return loop }
}

/// Shared steps of the checks. Every check runs in a child process (an exit test): a check that
/// blocks there blocks nothing else, so these helpers wait synchronously, always with a deadline.
enum LoopLab {
    /// The patience for what a correct thread does within milliseconds (a block running, stop()
    /// returning). 1 s was not enough on a loaded 2-core machine: with one `yes` beside the suite
    /// and other builds running (load average ~55), start() of the reference did not return
    /// within 1 s in 3 runs of 20. A single call shows no progress to wait on, so the
    /// bound is the course's prompt deadline.
    static let prompt = Deadline.promptSeconds

    /// The mode a check runs the loop in, as a scroll view's tracking does with
    /// `UITrackingRunLoopMode`: a nested run in another mode than the default one.
    static let trackingName = "KataTrackingMode"
    static var tracking: RunLoop.Mode { RunLoop.Mode(trackingName) }

    static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    static func milliseconds(_ nanoseconds: UInt64) -> String { String(format: "%.0f ms", Double(nanoseconds) / 1e6) }

    /// CPU time of the calling thread (POSIX `CLOCK_THREAD_CPUTIME_ID`, on Linux and on Darwin).
    static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// What a refused first block usually means.
    static let refusedHint = "start() must create the thread, run its loop, and return once the loop runs; perform(_:) then queues the block on that loop and returns true."

    /// A new thread, started: start() called on a dedicated thread and given `prompt` seconds
    /// to return. Records the failure and returns nil if it did not.
    ///
    /// With `keep`, the RunLoopThread is never released (the child process ends with the check):
    /// its deinit, and whatever it waits for, is left to the check about releasing one.
    static func started(keep: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) -> RunLoopThread? {
        let loop = RunLoopThread()
        if keep { _ = Unmanaged.passRetained(loop) }
        guard returns("start()", in: "start()", hint: "start() waits for the loop to run: does the thread's body run its loop, and does it tell start() once it does?", sourceLocation: sourceLocation, { loop.start() })
        else { return nil }
        return loop
    }

    /// Calls learner code on a dedicated thread; false (recorded as "deadlock suspected") if it
    /// did not return within `seconds`.
    @discardableResult
    static func returns(_ what: String, seconds: Double = prompt, in place: String, hint: String? = nil,
                        sourceLocation: SourceLocation = #_sourceLocation, _ body: @escaping @Sendable () -> Void) -> Bool {
        Await.blockingCall(what, seconds: seconds, in: place, hint: hint, sourceLocation: sourceLocation, body)
    }

    /// Waits until `condition` holds; gives up at once with `hopeless`'s reason when the event
    /// can no longer come, or after `seconds` in which `progress()` did not change (blocks still
    /// running, say; see `ProgressDeadline`) with `missing`. Records the failure.
    static func wait(seconds: Double = prompt, missing: @autoclosure () -> String,
                     unless hopeless: () -> String? = { nil }, progress: () -> Int = { 0 },
                     sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) -> Bool {
        var deadline = ProgressDeadline(seconds: seconds, progress: progress())
        while !condition() {
            if let reason = hopeless() {
                if condition() { return true }
                Issue.record(Comment(rawValue: reason), sourceLocation: sourceLocation)
                return false
            }
            if deadline.expired(progress: progress()) {
                if condition() { return true }
                Issue.record(Comment(rawValue: missing()), sourceLocation: sourceLocation)
                return false
            }
            usleep(1_000)
        }
        return true
    }

    /// Performs a block right after start() and waits for it: the proof that the thread works,
    /// before a check looks at anything else. The block must run on a thread that is not the
    /// caller's, not the main thread, and is running a run loop. Returns that thread.
    static func probe(_ loop: RunLoopThread, sourceLocation: SourceLocation = #_sourceLocation) -> ThreadHandle? {
        let seen = Locked<(Sighting, ThreadHandle)?>(nil)
        let caller = ObjectIdentifier(Thread.current)
        let accepted = loop.perform { seen.withLock { $0 = (Sighting.here(), ThreadHandle(Thread.current)) } }
        guard accepted else {
            Issue.record("perform(_:) returned false (refused) for a block performed right after start() returned. \(refusedHint)", sourceLocation: sourceLocation)
            return nil
        }
        guard wait(missing: "A block performed right after start() returned did not run within \(prompt) s. \(noBlockHint)",
                   sourceLocation: sourceLocation, { seen.current != nil })
        else { return nil }
        guard let (sighting, handle) = seen.current else { return nil }
        guard judge(sighting, caller: caller, what: "A block performed right after start()", sourceLocation: sourceLocation) else { return nil }
        return handle
    }

    static let noBlockHint = "Does start() return only once the loop runs? Does perform(_:) queue the block on the loop's run loop (RunLoop.perform, or a queue of your own with an input source) and then wake it with CFRunLoopWakeUp? A run loop with no input source returns at once from run(), and its thread ends."

    /// Records why `sighting` is not a sighting of a dedicated thread running its run loop.
    @discardableResult
    static func judge(_ sighting: Sighting, caller: ObjectIdentifier? = nil, loopThread: ObjectIdentifier? = nil,
                      what: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        if sighting.isMainThread {
            Issue.record(Comment(rawValue: "\(what) ran on the main thread: perform(_:) must run blocks on the loop's own thread, not with DispatchQueue.main or RunLoop.main."), sourceLocation: sourceLocation)
            return false
        }
        if let caller, sighting.thread == caller {
            Issue.record(Comment(rawValue: "\(what) ran on the thread that called perform(_:), before it returned: queue it on the loop's thread instead of calling it."), sourceLocation: sourceLocation)
            return false
        }
        if let loopThread, sighting.thread != loopThread {
            Issue.record(Comment(rawValue: "\(what) ran on another thread than the loop's first block: every block and timer of a RunLoopThread runs on its one thread (not on a dispatch queue, whose blocks may run on any of its threads)."), sourceLocation: sourceLocation)
            return false
        }
        if sighting.mode == nil {
            Issue.record(Comment(rawValue: "\(what) ran on a thread whose run loop was not running (RunLoop.current.currentMode was nil): a dispatch queue's worker thread (DispatchQueue.global(), or DispatchQueue.main where the main thread is parked in dispatchMain()), or a thread whose loop had ended. Queue blocks on the loop thread's run loop."), sourceLocation: sourceLocation)
            return false
        }
        return true
    }

    /// Calls stop() on a dedicated thread and waits `seconds` for it to return. Records the
    /// failure, with what the loop's thread was doing, and returns the time it returned.
    /// `calling` becomes true just before stop() is called.
    static func stop(_ loop: RunLoopThread, thread: ThreadHandle, seconds: Double = prompt, in place: String,
                     calling: Locked<Bool>? = nil, sourceLocation: SourceLocation = #_sourceLocation) -> UInt64? {
        let returnedAt = Locked<UInt64?>(nil)
        _ = ThreadGang.spawn {
            calling?.withLock { $0 = true }
            loop.stop()
            returnedAt.withLock { $0 = LoopLab.now }
        }
        guard Deadline.happens(within: seconds, { returnedAt.current != nil }) else {
            if thread.hasEnded {
                Issue.record(Comment(rawValue: "Deadlock suspected in \(place): stop() did not return within \(seconds) s, although the loop's thread had ended. It waits for something the thread never does: signal it as the thread's body ends."), sourceLocation: sourceLocation)
            } else {
                Issue.record(Comment(rawValue: "Deadlock suspected in \(place): stop() did not return within \(seconds) s, and the loop's thread was still alive: the loop never ended. CFRunLoopStop ends only the current pass of RunLoop.run(), which starts the next one; a stop flag set without waking the loop is seen only when something else wakes it (here a timer 5 s away), or never. End the loop from a block queued on it, behind the blocks it has already accepted: that block sets a flag only the loop's thread reads and calls CFRunLoopStop on its own loop, and the thread runs run(mode:before:) in a loop that checks the flag between passes."), sourceLocation: sourceLocation)
            }
            return nil
        }
        return returnedAt.current
    }

    /// Waits until the loop's thread has ended (`Thread.isFinished`), at most `seconds`.
    static func waitForEnd(of thread: ThreadHandle, seconds: Double = prompt, missing: @autoclosure () -> String,
                           sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        wait(seconds: seconds, missing: missing(), sourceLocation: sourceLocation) { thread.hasEnded }
    }
}
