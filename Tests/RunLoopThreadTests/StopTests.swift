import Dispatch
import Foundation
import KataTestSupport
import RunLoopThread
import Testing

/// stop(): the loop and its thread end, after what was accepted, from any thread including the
/// loop's own; later work is refused, never lost; and a RunLoopThread nobody holds ends its thread.
/// Every check runs isolated: a loop that never ends, or a stop() that waits for itself, would
/// otherwise outlive the check.
@Suite("Stopping", .exitIsAFailure)
struct StopTests {
    static let crashHint = "State shared between the loop's thread and the callers of stop() and perform(_:) needs a lock."

    @Test("stop() returns once the thread has ended, after the blocks it had accepted; again and from 4 threads it returns at once")
    func stopEndsThread() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "stop() from another thread")
            StopTests.fromAnotherThread()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "stop() from another thread", crashHint: StopTests.crashHint)
    }

    /// The loop has a timer 5 s away, so a loop that is never woken would sleep 5 s. A slow block
    /// is running, and 20 quick ones queued behind it, when stop() is called; the slow block ends
    /// 100 ms after the call. (Measured on Linux: a
    /// CFRunLoopStop called during the slow block ends the pass as soon as it returns, and blocks
    /// queued behind it are never run.)
    static func fromAnotherThread() {
        guard let loop = LoopLab.started(), let thread = LoopLab.probe(loop) else { return }
        guard loop.schedule(after: 5, repeating: 5, {}) else {
            Issue.record("schedule(after:repeating:modes:_:) refused a timer on a running thread.")
            return
        }
        // Let the loop fall asleep: the slow block then runs right after the wake-up, where a
        // CFRunLoopStop meanwhile ends the pass as soon as it returns.
        Thread.sleep(forTimeInterval: 0.05)
        let slowEnded = Locked<UInt64?>(nil)
        let quick = Locked(0)
        let slowBegan = DispatchSemaphore(value: 0)
        let stopCalled = Locked(false)
        // The slow block lasts until 100 ms after stop() has been called (at most 1 s).
        guard loop.perform({
            slowBegan.signal()
            _ = Deadline.happens(within: LoopLab.prompt, { stopCalled.current })
            Thread.sleep(forTimeInterval: 0.1)
            slowEnded.withLock { $0 = LoopLab.now }
        }) else {
            Issue.record("perform(_:) refused a block on a running thread.")
            return
        }
        guard Deadline.wait(for: slowBegan, seconds: LoopLab.prompt, in: "a block performed before stop()", waitingFor: "the block starting") else { return }
        var accepted = 0
        for _ in 0..<20 where loop.perform({ quick.withLock { $0 += 1 } }) { accepted += 1 }
        #expect(accepted == 20, "perform(_:) refused \(20 - accepted) of 20 blocks on a running thread.")
        guard let returnedAt = LoopLab.stop(loop, thread: thread, in: "stop() called from another thread", calling: stopCalled) else { return }
        guard let slowEnd = slowEnded.current, slowEnd <= returnedAt else {
            Issue.record("stop() returned while a block accepted before it was still running: stop() returns only once the loop's thread has ended, after the blocks already accepted.")
            return
        }
        #expect(quick.current == accepted, "stop() returned, and only \(quick.current) of the \(accepted) blocks accepted before it had run: accepted blocks run before the loop ends, never lost. CFRunLoopStop ends the current pass right after the block that is running, and blocks queued behind it are never run: queue the end of the loop behind them, as one more block.")
        guard LoopLab.waitForEnd(of: thread, missing: "stop() returned, and the loop's thread was still alive \(LoopLab.prompt) s later: stop() returns only once the thread's body has ended (wait for it: a semaphore or condition signalled as the body ends).")
        else { return }
        guard LoopLab.returns("a second stop()", in: "stop() called again", hint: "stop() on a stopped thread does nothing more.", { loop.stop() })
        else { return }
        ThreadGang.run(4, seconds: LoopLab.prompt, in: "stop() from 4 threads at once on a stopped thread") { _ in loop.stop() }
        // And 4 threads stopping a running one together: every call returns once it has ended.
        guard let second = LoopLab.started(), let secondThread = LoopLab.probe(second) else { return }
        let ended = Locked(0)
        guard ThreadGang.run(4, seconds: LoopLab.prompt, in: "stop() from 4 threads at once", { _ in
            second.stop()
            if secondThread.hasEnded || Deadline.happens(within: 0.5, { secondThread.hasEnded }) { ended.withLock { $0 += 1 } }
        }) else { return }
        #expect(ended.current == 4, "4 threads called stop() at once; for \(4 - ended.current) of them, the loop's thread had not ended 0.5 s after stop() returned: every call returns only once the thread has ended.")
    }

    @Test("stop() called in a block or a timer on the loop's own thread returns at once, and the thread ends")
    func stopFromLoopThread() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "stop() on the loop's own thread")
            StopTests.fromTheLoopThread()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "stop() on the loop's own thread", crashHint: StopTests.crashHint)
    }

    static func fromTheLoopThread() {
        for fromTimer in [false, true] {
            let place = fromTimer ? "a timer" : "a block"
            guard let loop = LoopLab.started(), let thread = LoopLab.probe(loop) else { return }
            let returned = Locked(false)
            let later = Locked(false)
            let body: @Sendable () -> Void = {
                loop.stop()
                returned.withLock { $0 = true }
            }
            let accepted = fromTimer ? loop.schedule(after: 0.02, body) : loop.perform(body)
            guard accepted else {
                Issue.record("\(fromTimer ? "schedule(after:repeating:modes:_:)" : "perform(_:)") refused work on a running thread.")
                return
            }
            // Submitted right after: refused if stop() has already been called, and run if not.
            let laterAccepted = loop.perform { later.withLock { $0 = true } }
            guard LoopLab.wait(missing: "Deadlock suspected in stop() called in \(place) on the loop's own thread: it did not return within \(LoopLab.prompt) s. It waits for the thread to end, and the thread is the one waiting: on its own thread, stop() must only ask the loop to end and return.",
                               { returned.current })
            else { return }
            guard LoopLab.waitForEnd(of: thread, missing: "stop() called in \(place) on the loop's own thread returned, and the thread had not ended \(LoopLab.prompt) s later: the loop must end once that \(fromTimer ? "timer" : "block") returns.")
            else { return }
            if laterAccepted {
                #expect(later.current, "A block accepted by perform(_:) just before stop() was called on the loop's thread never ran: accepted blocks run before the loop ends, never lost.")
            }
            let refused = !loop.perform({})
            #expect(refused, "perform(_:) accepted a block after stop() had been called on the loop's own thread and the thread had ended: it must return false.")
            guard LoopLab.returns("stop() called again from another thread", in: "stop() after stop() on the loop's thread", { loop.stop() })
            else { return }
        }
    }

    @Test("After stop(), perform and schedule return false and never run; blocks accepted while stop() runs all run; a stopped thread never starts again")
    func refusedAfterStop() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "work submitted around stop()")
            StopTests.refusedNeverLost()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "work submitted around stop()", crashHint: StopTests.crashHint)
    }

    static func refusedNeverLost() {
        // A stopped thread refuses work, and the refused work never runs.
        guard let loop = LoopLab.started(), let thread = LoopLab.probe(loop) else { return }
        guard LoopLab.stop(loop, thread: thread, in: "stop() after one block") != nil else { return }
        let ranAfterStop = Locked(0)
        let performed = loop.perform { ranAfterStop.withLock { $0 += 1 } }
        let scheduled = loop.schedule(after: 0.01) { ranAfterStop.withLock { $0 += 1 } }
        #expect(!performed, "perform(_:) returned true after stop() had returned: a stopped thread runs nothing more, so it must refuse the block (return false) instead of losing it silently.")
        #expect(!scheduled, "schedule(after:repeating:modes:_:) returned true after stop() had returned: it must return false.")
        guard !performed, !scheduled else { return }
        guard LoopLab.returns("start() after stop()", in: "start() on a stopped thread", hint: "A stopped RunLoopThread never starts again: start() does nothing.", { loop.start() }) else { return }
        let restartedAccepts = loop.perform({ ranAfterStop.withLock { $0 += 1 } })
        #expect(!restartedAccepts, "After stop() and then start(), perform(_:) accepted a block: a stopped thread never starts again.")
        Thread.sleep(forTimeInterval: 0.1)
        #expect(ranAfterStop.current == 0, "Work submitted after stop() ran \(ranAfterStop.current) time(s).")

        // stop() before start(): returns, and the thread never starts.
        let never = RunLoopThread()
        guard LoopLab.returns("stop() before start()", in: "stop() before start()", hint: "stop() on a thread that was never started has nothing to wait for.", { never.stop(); never.stop() }),
              LoopLab.returns("start() after stop()", in: "start() after stop() on a thread never started", { never.start() })
        else { return }
        let neverAccepts = never.perform({})
        #expect(!neverAccepts, "perform(_:) accepted a block on a RunLoopThread stopped before it was started: a stopped thread never starts.")

        // 4 threads perform blocks as fast as they can while stop() is called: each block is
        // either refused (false) or run before stop() returns. None is lost.
        guard let busy = LoopLab.started(), let busyThread = LoopLab.probe(busy) else { return }
        let accepted = Locked(0)
        let ran = Locked(0)
        let refusedThenAccepted = Locked(false)
        let calling = Locked(0)  // submitters whose first perform(_:) has returned
        let go = StartBarrier(parties: 5)
        let submitters = (0..<4).map { _ in
            ThreadGang.spawn {
                guard go.arrive(seconds: LoopLab.prompt) else { return }
                var refused = false
                for call in 0..<200_000 {
                    let ok = busy.perform { ran.withLock { $0 += 1 } }
                    if call == 0 { calling.withLock { $0 += 1 } }
                    if ok {
                        accepted.withLock { $0 += 1 }
                        if refused { refusedThenAccepted.withLock { $0 = true } }
                    } else {
                        refused = true
                        break
                    }
                }
            }
        }
        guard go.arrive(seconds: LoopLab.prompt) else { return }
        // stop() comes once every submitter is in its loop, however late a busy machine lets
        // them start (a fixed pause was not enough at load 40), and 20 ms later.
        guard Deadline.waitUntil(quiet: LoopLab.prompt, in: "4 threads calling perform(_:) in a loop",
                                 waitingFor: "the first perform(_:) call of each thread returning",
                                 progress: { calling.current + accepted.current }, { calling.current == 4 })
        else { return }
        Thread.sleep(forTimeInterval: 0.02)
        guard LoopLab.stop(busy, thread: busyThread, in: "stop() while 4 threads perform blocks") != nil else { return }
        let ranWhenStopReturned = ran.current
        for submitter in submitters {
            guard Deadline.wait(for: submitter, seconds: LoopLab.prompt, in: "a thread calling perform(_:) in a loop", waitingFor: "perform(_:) returning false after stop()") else { return }
        }
        let total = accepted.current
        #expect(total > 0, "4 threads called perform(_:) on a thread that nobody had stopped yet, and it refused every block: a running thread accepts blocks until stop() is called.")
        #expect(ranWhenStopReturned == total, "While 4 threads performed blocks, stop() returned with \(ranWhenStopReturned) of the \(total) blocks it had accepted run\(ranWhenStopReturned < total ? ": \(total - ranWhenStopReturned) accepted blocks were lost (or still waiting) when the loop ended. Refuse new blocks and queue the end of the loop under one lock, so that the end comes after every accepted block" : "")).")
        Thread.sleep(forTimeInterval: 0.05)
        #expect(ran.current == total, "\(ran.current) blocks ran for \(total) accepted: a refused block must never run.")
        #expect(!refusedThenAccepted.current, "perform(_:) returned false, then true again on the same thread, around stop(): once stop() has been called, every block is refused.")
    }

    @Test("A started RunLoopThread released without stop() is freed, and its thread ends, also when let go inside its own block")
    func releasedOwnerEndsThread() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "releasing a RunLoopThread")
            StopTests.releasedIsFreed()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "releasing a RunLoopThread", crashHint: StopTests.crashHint)
    }

    static func releasedIsFreed() {
        let neverStarted = WeakLoop(RunLoopThread())
        #expect(neverStarted.value == nil, "A RunLoopThread that was never started was not freed when its last reference went away: something keeps it.")

        guard let (weak, thread) = startAndRelease() else { return }
        guard LoopLab.wait(missing: "A started RunLoopThread was released without stop(), and was still alive \(LoopLab.prompt) s later: its thread keeps it (the thread's closure or Thread subclass holds the RunLoopThread strongly: a cycle owner → thread → closure → owner). Give the thread only what it needs (the state it shares with the owner), or capture [weak self].",
                           { weak.value == nil })
        else { return }
        guard LoopLab.waitForEnd(of: thread, missing: "A started RunLoopThread was released without stop() and freed, and its thread was still running \(LoopLab.prompt) s later: the thread outlives its owner. End the loop in deinit (without waiting there: the last reference may go on the loop's own thread).")
        else { return }

        // The last reference let go inside one of the loop's own blocks: the deinit runs on the
        // loop's thread, where waiting for that thread to end would wait for itself.
        guard let (insideWeak, insideThread, letGo) = startAndReleaseInsideBlock() else { return }
        letGo.signal()
        guard LoopLab.wait(missing: "A started RunLoopThread whose last reference was let go inside one of its own blocks was still alive \(LoopLab.prompt) s later: something else keeps it.",
                           { insideWeak.value == nil })
        else { return }
        _ = LoopLab.waitForEnd(of: insideThread, missing: "A started RunLoopThread was let go inside one of its own blocks, so its deinit ran on the loop's own thread; it was freed, and that thread was still running \(LoopLab.prompt) s later. A deinit there must end the loop without waiting for the thread to end: the thread would be waiting for itself.")
    }

    /// Starts a RunLoopThread and queues a block that lets go of its only reference once
    /// `letGo` is signalled, which the caller does after its own references are gone.
    static func startAndReleaseInsideBlock() -> (WeakLoop, ThreadHandle, DispatchSemaphore)? {
        guard let loop = LoopLab.started(keep: false), let thread = LoopLab.probe(loop) else { return nil }
        let owner = Locked<RunLoopThread?>(loop)
        let letGo = DispatchSemaphore(value: 0)
        let accepted = loop.perform {
            _ = letGo.wait(timeout: .now() + LoopLab.prompt)
            owner.withLock { $0 = nil }
        }
        guard accepted else {
            Issue.record("perform(_:) refused a block on a running thread.")
            return nil
        }
        return (WeakLoop(loop), thread, letGo)
    }

    /// Starts a RunLoopThread with a repeating timer and a block done, and lets go of it.
    static func startAndRelease() -> (WeakLoop, ThreadHandle)? {
        guard let loop = LoopLab.started(keep: false), let thread = LoopLab.probe(loop) else { return nil }
        guard loop.schedule(after: 0.02, repeating: 0.02, {}) else {
            Issue.record("schedule(after:repeating:modes:_:) refused a timer on a running thread.")
            return nil
        }
        return (WeakLoop(loop), thread)
    }
}
