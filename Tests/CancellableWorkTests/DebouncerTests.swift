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

    /// Collects the names of the actions that ran.
    final class Runs: @unchecked Sendable {
        let names = Locked([String]())
        func action(_ name: String) -> @Sendable () -> Void { { [names] in names.withLock { $0.append(name) } } }
        /// Waits until `name` ran, then a little longer for anything that should not run.
        @discardableResult
        func waitFor(_ name: String, in place: String) -> Bool {
            let ran = Deadline.waitUntil(seconds: Deadline.promptSeconds, in: place, waitingFor: "the action \"\(name)\" running",
                                         hint: "schedule(_:) should run the action `delay` after the last call, with asyncAfter on the given queue.") {
                names.current.contains(name)
            }
            if ran { Thread.sleep(forTimeInterval: DebouncerTests.delay * 3) }
            return ran
        }
    }

    @Test("A burst from 4 threads runs exactly the last action, once")
    func burstRunsOnlyTheLast() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "a burst of schedule calls from 4 threads")
            DebouncerTests.burstFromManyThreads()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "a burst of schedule calls from 4 threads",
            crashHint: "A crash here usually means the pending work item was read and replaced by several threads at once without a lock.")
    }

    static func burstFromManyThreads() {
        let runs = Runs()
        let debouncer = Debouncer(delay: dispatchDelay, queue: DispatchQueue(label: "debounced"))
        // Rounds in which the threads call schedule at the same moment: an unprotected
        // pending item then loses a cancel now and then, and that action runs.
        let together = StartBarrier(parties: 4)
        ThreadGang.run(4, in: "a burst of schedule calls from 4 threads") { thread in
            for step in 0..<1_500 {
                guard together.arrive() else { return }
                debouncer.schedule(runs.action("t\(thread)-\(step)"))
            }
        }
        debouncer.schedule(runs.action("last"))
        runs.waitFor("last", in: "a burst of schedule calls from 4 threads")
        let ran = runs.names.current
        #expect(ran == ["last"], "After 6,000 schedule calls from 4 threads and a final one, these actions ran: \(ran.prefix(6))\(ran.count > 6 ? " … (\(ran.count))" : ""). Only \"last\" should run: each schedule must cancel the pending action, and the pending item must be protected by a lock, or two threads both replace it and one item is never cancelled.")
    }

    @Test("cancel() stops the pending action; a later schedule still runs")
    func cancelRunsNothing() {
        let runs = Runs()
        let debouncer = Debouncer(delay: Self.dispatchDelay, queue: DispatchQueue(label: "debounced"))
        debouncer.schedule(runs.action("cancelled-1"))
        debouncer.schedule(runs.action("cancelled-2"))
        debouncer.cancel()
        debouncer.cancel()  // nothing pending: does nothing
        Thread.sleep(forTimeInterval: Self.delay * 3)
        #expect(runs.names.current.isEmpty, "After cancel(), these actions still ran: \(runs.names.current). cancel() must cancel the pending work item.")
        debouncer.schedule(runs.action("after"))
        runs.waitFor("after", in: "a debouncer used again after cancel()")
        #expect(runs.names.current == ["after"], "After cancel() and a new schedule, the actions that ran were \(runs.names.current); expected only \"after\".")
    }

    @Test("Two bursts separated by a pause each run their last action, once")
    func separateBurstsEachRun() {
        let runs = Runs()
        let debouncer = Debouncer(delay: Self.dispatchDelay, queue: DispatchQueue(label: "debounced"))
        for step in 0..<10 { debouncer.schedule(runs.action("first-\(step)")) }
        guard runs.waitFor("first-9", in: "the first burst") else { return }
        for step in 0..<10 { debouncer.schedule(runs.action("second-\(step)")) }
        runs.waitFor("second-9", in: "the second burst")
        #expect(runs.names.current == ["first-9", "second-9"], "Two bursts ran \(runs.names.current); expected [\"first-9\", \"second-9\"]: the last action of each burst, once. A debouncer that keeps the first action drops the last; one that never cancels runs them all.")
    }
}
