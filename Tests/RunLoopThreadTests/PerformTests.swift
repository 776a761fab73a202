import Dispatch
import Foundation
import KataTestSupport
import RunLoopThread
import Testing

/// start() and perform(_:): a dedicated thread whose run loop runs, blocks in order on it, a
/// sleeping loop woken for each block, and a thread that stays alive and asleep with nothing to
/// do. Every check runs isolated (an exit test): a wrong thread can crash, and a loop that never
/// ends would otherwise outlive the check.
@Suite("Starting and performing", .exitIsAFailure)
struct PerformTests {
    static let crashHint = "Shared state (the block queue, the state, the run loop reference) read and written from several threads without a lock crashes; so does a force-unwrapped run loop that the thread has not set yet."

    @Test("start() returns with the loop running: a block performed at once runs on the loop's own thread (20 new threads)")
    func startThenPerform() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            // 20 threads started one after another: on a loaded machine that takes seconds, so the
            // watchdog waits on while rounds keep completing. Its quiet spell outlasts the check's
            // own deadline for one call, so that a start() that never returns is said by the
            // check, with what it waited for, and not by the watchdog.
            IsolatedCheck.begin(quiet: LoopLab.prompt + 2, limit: 30, in: "start() then perform(_:)", progress: { PerformTests.roundsDone.current })
            PerformTests.startThenPerformAtOnce()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "start() then perform(_:)", crashHint: PerformTests.crashHint)
    }

    /// A start() that returns before the thread has its run loop loses the block performed right
    /// after it, or runs it elsewhere: 20 new threads make that window show.
    /// Rounds of `startThenPerformAtOnce` done: what its watchdog watches.
    static let roundsDone = Locked(0)

    static func startThenPerformAtOnce() {
        // The handles keep each Thread object alive, so that no two have the same identity.
        var handles: [ThreadHandle] = []
        for round in 1...20 {
            guard let loop = LoopLab.started() else { return }
            guard let thread = LoopLab.probe(loop) else {
                if round > 1 { Issue.record("(In round \(round) of 20: the earlier rounds worked. start() may return before the loop runs, so that a block performed at once is lost or run elsewhere.)") }
                return
            }
            let new = !handles.contains { $0.id == thread.id }
            handles.append(thread)
            roundsDone.withLock { $0 += 1 }
            #expect(new, "Two RunLoopThreads ran their blocks on the same thread: each start() creates a thread of its own.")
            // Not stopped (stop() has checks of its own): the child process ends with the check.
        }
    }

    @Test("start() called again does nothing more: blocks still run on the first thread, and stop() ends it")
    func startTwiceKeepsOneThread() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "start() called twice")
            PerformTests.startTwice()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "start() called twice", crashHint: PerformTests.crashHint)
    }

    /// A start() that does not look at its state starts a second thread and points the object at
    /// it: blocks then run on the new thread, and the first one lives on, never stopped.
    static func startTwice() {
        guard let loop = LoopLab.started(), let first = LoopLab.probe(loop) else { return }
        guard LoopLab.returns("a second start()", in: "start() called on a running thread",
                              hint: "start() on a started RunLoopThread does nothing more and returns.", { loop.start() })
        else { return }
        guard let after = LoopLab.probe(loop) else { return }
        guard after.id == first.id else {
            Issue.record("After a second start(), a block ran on another thread than the one before: the second call started a new thread, and the first one lives on with nobody to stop it. start() on a started RunLoopThread does nothing more: look at the state, under the lock, before creating a thread.")
            return
        }
        guard LoopLab.stop(loop, thread: first, in: "stop() after start() was called twice") != nil else { return }
        _ = LoopLab.waitForEnd(of: first, missing: "stop() returned after start() had been called twice, and the loop's first thread was still alive \(LoopLab.prompt) s later: the second start() made a thread that stop() ended instead, or none at all. start() on a started RunLoopThread does nothing more.")
    }

    @Test("perform(_:) from 4 threads at once: every block runs once, on the loop's thread, each thread's blocks in the order submitted")
    func blocksRunInOrder() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "perform(_:) from 4 threads")
            PerformTests.fromFourThreads()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "perform(_:) from 4 threads", crashHint: PerformTests.crashHint)
    }

    static func fromFourThreads() {
        guard let loop = LoopLab.started(), let thread = LoopLab.probe(loop) else { return }
        let perThread = 250
        struct Run: Sendable { let submitter: Int; let number: Int; let sighting: Sighting }
        let runs = Locked([Run]())
        let accepted = Locked(0)
        guard ThreadGang.run(4, seconds: 2, in: "4 threads calling perform(_:)", { submitter in
            for number in 0..<perThread {
                let ok = loop.perform { runs.withLock { $0.append(Run(submitter: submitter, number: number, sighting: Sighting.here())) } }
                if ok { accepted.withLock { $0 += 1 } }
            }
        }) else { return }
        #expect(accepted.current == 4 * perThread, "perform(_:) refused \(4 * perThread - accepted.current) of \(4 * perThread) blocks on a running thread: it must accept every block until stop().")
        guard LoopLab.wait(seconds: 2, missing: "Of \(accepted.current) blocks accepted from 4 threads, \(runs.current.count) ran, and then none for 2 s: blocks were lost. Keep them in the run loop's queue (or your own, under a lock) and wake the loop.",
                           unless: { thread.hasEnded ? "The loop's thread ended while blocks were waiting for it (\(runs.current.count) of \(accepted.current) ran), and nobody had called stop(). Does the run loop have an input source or a timer to wait for?" : nil },
                           progress: { runs.current.count }, { runs.current.count >= accepted.current })
        else { return }
        // A block performed from a block runs after it, and does not deadlock.
        let nested = Locked([String]())
        let outer = loop.perform {
            nested.withLock { $0.append("outer begins") }
            let inner = loop.perform { nested.withLock { $0.append("inner") } }
            nested.withLock { $0.append(inner ? "outer ends" : "inner refused") }
        }
        #expect(outer)
        guard LoopLab.wait(missing: "A block that performed another block from the loop's thread did not finish, or the inner block did not run, within \(LoopLab.prompt) s (\(nested.current)): perform(_:) called on the loop's own thread must queue the block and return, never wait for it.",
                           { nested.current.count == 3 })
        else { return }
        #expect(nested.current == ["outer begins", "outer ends", "inner"], "A block performed from a block on the loop's thread ran \(nested.current): it must run after the block that performed it, never inside it.")

        let all = runs.current
        #expect(all.count == accepted.current, "\(accepted.current) blocks were accepted and \(all.count) ran: each accepted block runs exactly once.")
        for run in all.prefix(1) where !LoopLab.judge(run.sighting, loopThread: thread.id, what: "A block performed from one of 4 threads") { return }
        let elsewhere = all.filter { $0.sighting.thread != thread.id || $0.sighting.mode == nil }.count
        #expect(elsewhere == 0, "\(elsewhere) of \(all.count) blocks ran on another thread than the loop's, or with no run loop running: run every block on the loop's own thread.")
        for submitter in 0..<4 {
            let numbers = all.filter { $0.submitter == submitter }.map(\.number)
            if numbers != numbers.sorted() {
                Issue.record("Blocks performed one after another by one thread ran out of order (first out of place: \(zip(numbers, numbers.sorted()).first { $0 != $1 }.map { "block \($0.0) where block \($0.1) belonged" } ?? "?")): a run loop's block queue is first in, first out; a concurrent queue is not.")
                return
            }
        }
    }

    @Test("A block performed on an idle, sleeping loop runs within 1 s: perform(_:) wakes the loop")
    func performWakesLoop() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "perform(_:) on a sleeping loop")
            PerformTests.wakesSleepingLoop()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "perform(_:) on a sleeping loop", crashHint: PerformTests.crashHint)
    }

    /// Three times: 150 ms of nothing (the loop goes to sleep), then one block. A block queued
    /// with RunLoop.perform or CFRunLoopPerformBlock alone waits until something else wakes the
    /// loop: on Linux, measured, 1.9 s later.
    static func wakesSleepingLoop() {
        guard let loop = LoopLab.started(), let thread = LoopLab.probe(loop) else { return }
        for round in 1...3 {
            Thread.sleep(forTimeInterval: 0.15)
            let ranAt = Locked<UInt64?>(nil)
            guard loop.perform({ ranAt.withLock { $0 = LoopLab.now } }) else {
                Issue.record("perform(_:) returned false on a running thread (round \(round)).")
                return
            }
            guard LoopLab.wait(seconds: 1, missing: "A block performed on a loop that had nothing to do for 150 ms did not run within 1 s (round \(round) of 3). Queueing a block on a run loop (RunLoop.perform, CFRunLoopPerformBlock, CFRunLoopSourceSignal) does not wake it from its sleep: call CFRunLoopWakeUp on its CFRunLoop after queueing.",
                               unless: { thread.hasEnded ? "The loop's thread ended by itself, without stop(): \(idleHint)" : nil },
                               { ranAt.current != nil })
            else { return }
        }
    }

    static let idleHint = "a run loop with no input source and no timer returns from run() at once, and the thread's body then ends. Give it something to wait for before running it (a timer in the distant future, a CFRunLoopSource, a port; on Apple platforms AFNetworking added an NSMachPort)."

    @Test("With next to nothing to do for 450 ms, the loop's thread stays alive and asleep (no busy loop)")
    func idleLoopSleeps() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "an idle loop")
            PerformTests.idleThreadSleeps()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "an idle loop", crashHint: PerformTests.crashHint)
    }

    /// The CPU time the loop's thread used while it had next to nothing to do: a block every
    /// 75 ms for 450 ms, each reading the thread's CPU time. A loop that spins (run(mode:before:)
    /// returning at once because the mode has no source, called again and again) burns its core
    /// between blocks; a sleeping one uses next to nothing. (Measured on Linux: such a loop may
    /// sleep through every other idle stretch, when a block arrived as a pass began, and spins
    /// in the others; six stretches make the spin show, even when a loaded machine gives the
    /// spinning thread a small share of a core.)
    static func idleThreadSleeps() {
        guard let loop = LoopLab.started(), let thread = LoopLab.probe(loop) else { return }
        var sightings: [Sighting] = []
        for index in 0...6 {
            if index > 0 {
                let idleEnd = LoopLab.now + 75_000_000
                while LoopLab.now < idleEnd {
                    if thread.hasEnded {
                        Issue.record(Comment(rawValue: "The loop's thread ended by itself, with nothing to do, without stop(): \(idleHint)"))
                        return
                    }
                    usleep(2_000)
                }
            }
            let seen = Locked<Sighting?>(nil)
            guard loop.perform({ seen.withLock { $0 = Sighting.here() } }) else {
                Issue.record("perform(_:) refused a block on a thread that nobody had stopped.")
                return
            }
            guard LoopLab.wait(missing: "A block performed on an idle thread did not run within \(LoopLab.prompt) s.",
                               unless: { thread.hasEnded ? "The loop's thread ended by itself, with nothing to do, without stop(): \(idleHint)" : nil },
                               { seen.current != nil }),
                  let sighting = seen.current
            else { return }
            guard LoopLab.judge(sighting, loopThread: thread.id, what: "A block performed on an idle thread") else { return }
            sightings.append(sighting)
        }
        guard let first = sightings.first, let last = sightings.last else { return }
        let cpu = last.cpu &- first.cpu
        let wall = last.at &- first.at
        #expect(cpu < 10_000_000, "The loop's thread used \(LoopLab.milliseconds(cpu)) of CPU in \(LoopLab.milliseconds(wall)) with nothing to do but a tiny block every 75 ms: it spins. run(mode:before:) returns at once when the mode has no input source and no timer, so a loop around it never sleeps: give the run loop something to wait for, and let it sleep until woken.")
    }
}
