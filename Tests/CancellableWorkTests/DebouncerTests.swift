import CancellableWork
import Dispatch
import Foundation
import KataTestSupport
import Testing

/// A debouncer runs only the last action of a burst, once, after the burst is over. Times here
/// have wide margins: the checks are about which actions ran and how often.
@Suite("Debouncer", .exitIsAFailure)
struct DebouncerTests {
    static let delay = 0.15
    static var dispatchDelay: DispatchTimeInterval { .milliseconds(Int(delay * 1000)) }
    static let runHint = "schedule(_:) should run the action `delay` after the last call, with asyncAfter on the given queue."

    /// Collects the names of the actions that ran, and knows which ones are still held.
    final class Runs: @unchecked Sendable {
        let names = Locked([String]())
        let liveness = Liveness()
        func action(_ name: String) -> @Sendable () -> Void {
            liveness.tie(name) { [names] in names.withLock { $0.append(name) } }
        }
        func ran(_ name: String) -> Bool { names.current.contains(name) }
        /// Why `name` can never run: no one holds it any more (read before `ran`).
        func cannotRun(_ name: String) -> String? {
            guard !liveness.isHeld(name), !ran(name) else { return nil }
            return "schedule(_:) returned, the action \"\(name)\" has not run, and the debouncer no longer holds it: it can never run. Keep the last action in a pending DispatchWorkItem and schedule it with asyncAfter."
        }

        /// Inside an isolated check: waits until `name` ran, then a little longer for anything
        /// that should not run.
        @discardableResult
        func waitFor(_ name: String, in place: String) -> Bool {
            let ran = Deadline.waitUntil(seconds: Deadline.promptSeconds, in: place, waitingFor: "the action \"\(name)\" running", hint: runHint) {
                self.ran(name) || self.cannotRun(name) != nil
            }
            if let reason = cannotRun(name) {
                Issue.record(Comment(rawValue: reason))
                return false
            }
            if ran { Thread.sleep(forTimeInterval: DebouncerTests.delay * 3) }
            return ran
        }

        /// The same without blocking a thread.
        @discardableResult
        func runs(_ name: String, in place: String) async -> Bool {
            guard await Await.until(in: place, waitingFor: "the action \"\(name)\" running", hint: runHint,
                                    unless: { cannotRun(name) }, { ran(name) }) else { return false }
            await Await.pause(DebouncerTests.delay * 3)
            return true
        }
    }

    @Test("A burst from 4 threads runs exactly the last action, once")
    func burstRunsOnlyTheLast() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            // Up to eight bursts of at most 1.5 s each, with their waits: more than the default.
            IsolatedCheck.begin(seconds: 60, in: "a burst of schedule calls from 4 threads")
            DebouncerTests.burstFromManyThreads()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "a burst of schedule calls from 4 threads",
            crashHint: "A crash here usually means the pending work item was read and replaced by several threads at once without a lock.")
    }

    static func burstFromManyThreads() {
        // A burst in which the machine stalled all four threads for half the delay or more may
        // legitimately run an action in the middle: that burst proves nothing and is repeated.
        for _ in 0..<attempts {
            guard let ran = burstOnce() else { return }
            if let ran {
                #expect(ran == ["last"], "After 6,000 schedule calls from 4 threads and a final one, these actions ran: \(ran.prefix(6))\(ran.count > 6 ? " … (\(ran.count))" : ""). Only \"last\" should run: each schedule must cancel the pending action, and the pending item must be protected by a lock, or two threads both replace it and one item is never cancelled.")
                return
            }
        }
        Issue.record("The machine was too busy to run a burst without pauses of \(Int(delay * 500)) ms or more, \(attempts) times: run the check again on a less busy machine.")
    }

    /// One burst: nil when the check already failed, .some(nil) when the burst was
    /// inconclusive, else the actions that ran.
    /// The longest a burst's rounds run.
    static let burstSeconds = 1.5

    static func burstOnce() -> [String]?? {
        let runs = Runs()
        let debouncer = Debouncer(delay: dispatchDelay, queue: DispatchQueue(label: "debounced"))
        // Rounds in which the threads call schedule at the same moment: an unprotected
        // pending item then loses a cancel now and then, and that action runs.
        let together = StartBarrier(parties: 4)
        let rounds = 1_500
        let calls = Locked([UInt64]())
        // A loaded machine runs barrier-aligned rounds slowly: the burst stops after
        // `burstSeconds` whatever the count, all threads after the same round (thread 0 names
        // it before it arrives at that round's barrier, so everyone sees it after the release).
        let stopAt = Locked<Int?>(nil)
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(burstSeconds * 1e9)
        // Rounds that thread 0 has begun: what the gang's deadline watches move.
        let roundsBegun = Locked(0)
        guard ThreadGang.run(4, seconds: burstSeconds + Deadline.promptSeconds, in: "a burst of schedule calls from 4 threads",
                             progress: { roundsBegun.current }, { thread in
            var starts: [UInt64] = []
            starts.reserveCapacity(rounds)
            for step in 0..<rounds {
                // A round waits for every thread, however late a busy machine lets one come.
                guard together.arrive(seconds: 60) else { return }
                if let last = stopAt.current, step >= last { break }
                if thread == 0 { roundsBegun.withLock { $0 += 1 } }
                starts.append(DispatchTime.now().uptimeNanoseconds)
                debouncer.schedule(runs.action("t\(thread)-\(step)"))
                if thread == 0, DispatchTime.now().uptimeNanoseconds > end {
                    stopAt.withLock { $0 = $0 ?? step + 1 }
                }
            }
            calls.withLock { $0 += starts }
        }) else { return nil }
        let lastCall = DispatchTime.now().uptimeNanoseconds
        guard Await.blockingCall("schedule(_:)", in: "a debouncer after a burst", { debouncer.schedule(runs.action("last")) }) else { return nil }
        guard runs.waitFor("last", in: "a burst of schedule calls from 4 threads") else { return nil }
        let starts = (calls.current + [lastCall]).sorted()
        let longestPause = zip(starts, starts.dropFirst()).map { $1 - $0 }.max() ?? 0
        if Double(longestPause) / 1e9 >= delay / 2 { return .some(nil) }
        let ran = runs.names.current
        return .some(ran)
    }

    /// Calls `body` (learner code) on a dedicated thread: nil if it did not return (recorded),
    /// false if it took half the delay or more (the machine stalled it: an action may then run
    /// legitimately, and the round proves nothing), true otherwise.
    static func promptly(_ what: String, in place: String, _ body: @escaping @Sendable () -> Void) async -> Bool? {
        let took = await Await.call(what, in: place) { () -> Double in
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        guard let took else { return nil }
        return took < delay / 2
    }

    static let tooBusy = Comment(rawValue: "The machine was too busy to make these calls within half the debouncer's delay, \(attempts) times: run the check again on a less busy machine.")

    /// How many times a check tries again when the machine stalled a burst (which proves nothing
    /// either way): a right debouncer takes one try when idle; eight give a busy machine a chance.
    static let attempts = 8

    @Test("cancel() stops the pending action; a later schedule still runs")
    func cancelRunsNothing() async {
        let place = "a debouncer with a pending action"
        for _ in 0..<Self.attempts {
            let runs = Runs()
            let debouncer = Debouncer(delay: Self.dispatchDelay, queue: DispatchQueue(label: "debounced"))
            guard let prompt = await Self.promptly("schedule(_:) and cancel()", in: place, {
                debouncer.schedule(runs.action("cancelled-1"))
                debouncer.schedule(runs.action("cancelled-2"))
                debouncer.cancel()
                debouncer.cancel()  // nothing pending: does nothing
            }) else { return }
            guard prompt else { await Await.pause(Self.delay * 2); continue }
            await Await.pause(Self.delay * 3)
            #expect(runs.names.current.isEmpty, "After cancel(), these actions still ran: \(runs.names.current). cancel() must cancel the pending work item.")
            guard await Await.returns("schedule(_:)", in: "a debouncer used again after cancel()", { debouncer.schedule(runs.action("after")) }) else { return }
            await runs.runs("after", in: "a debouncer used again after cancel()")
            #expect(runs.names.current == ["after"], "After cancel() and a new schedule, the actions that ran were \(runs.names.current); expected only \"after\".")
            return
        }
        Issue.record(Self.tooBusy)
    }

    @Test("Two bursts separated by a pause each run their last action, once")
    func separateBurstsEachRun() async {
        for _ in 0..<Self.attempts {
            let runs = Runs()
            let debouncer = Debouncer(delay: Self.dispatchDelay, queue: DispatchQueue(label: "debounced"))
            guard let firstPrompt = await Self.promptly("10 schedule(_:) calls", in: "the first burst", {
                for step in 0..<10 { debouncer.schedule(runs.action("first-\(step)")) }
            }), await runs.runs("first-9", in: "the first burst") else { return }
            guard let secondPrompt = await Self.promptly("10 schedule(_:) calls", in: "the second burst", {
                for step in 0..<10 { debouncer.schedule(runs.action("second-\(step)")) }
            }) else { return }
            await runs.runs("second-9", in: "the second burst")
            guard firstPrompt, secondPrompt else { continue }
            #expect(runs.names.current == ["first-9", "second-9"], "Two bursts ran \(runs.names.current); expected [\"first-9\", \"second-9\"]: the last action of each burst, once. A debouncer that keeps the first action drops the last; one that never cancels runs them all.")
            return
        }
        Issue.record(Self.tooBusy)
    }
}
