import Dispatch
import Foundation
import KataTestSupport
import StallMonitor
import Testing

/// What gets reported: one report per stall, with the stall's duration, on the report queue, when
/// the queue answers; nothing for a queue that is busy but answers within the threshold. Every
/// check runs isolated: a DispatchSource misused (released or cancelled while suspended, resumed
/// twice) traps, and would otherwise take the whole run down.
@Suite("Stall reports", .exitIsAFailure)
struct ReportTests {
    static let crashHint = "libdispatch traps on a DispatchSource released (or cancelled) before it was ever resumed, and on a second resume: resume the timer exactly once, in start(), and keep only a resumed timer."

    @Test("A 1 s stall gives exactly one report, with its duration, on the report queue, once the queue answers")
    func oneStallOneReport() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "a 1 s stall")
            ReportTests.oneStall()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "a 1 s stall", crashHint: ReportTests.crashHint)
    }

    /// Threshold 500 ms, interval 50 ms, a 1 s stall. The reported duration is decided by
    /// events: at least the threshold (a shorter wait is no stall), at most the time from queueing
    /// the block to the delivery (an earlier ping ran before the block). Measured from when the
    /// lateness was noticed, it comes out under the threshold; from start(), over the maximum.
    static func oneStall() {
        let lab = StallLab("one stall")
        let monitor = lab.makeMonitor(thresholdMs: 500, intervalMs: 50)
        monitor.start()
        // A responsive queue for 6 intervals: nothing to report.
        Thread.sleep(forTimeInterval: 0.3)
        #expect(lab.count == 0, "The watched queue was idle, answering every ping at once, yet \(lab.count) stall(s) were reported \(lab.durations). Report only a ping that waited at least the threshold.")
        // Inline: the stall starts the moment it is queued, so no ping waits longer than it.
        guard let block = lab.stall(seconds: 1.0, inline: true) else { return }
        guard lab.waitForReport(1, missing: "The watched queue was blocked for 1 s (threshold 500 ms, interval 50 ms), and no stall was reported within \(StallLab.deliveryGrace) s after it answered. \(StallLab.noReportHint)")
        else { return }
        // Eight more intervals: time for any extra report to show up.
        Thread.sleep(forTimeInterval: 0.4)
        let reports = lab.deliveries.current
        #expect(reports.count == 1, "One 1 s stall gave \(reports.count) reports \(lab.durations); expected exactly one. A stall is reported once, when the queue answers: not once per tick while the ping is late, and not once per queued-up ping.")
        guard let first = reports.first else { return }
        #expect(first.at >= block.end, "A report arrived \(String(format: "%.0f", Double(block.end &- first.at) / 1e6)) ms before the watched queue answered. Report a stall when the late ping finally runs, with its full duration, not when the ping is found to be late.")
        let longest = Double(first.at &- block.queued) / 1e9
        #expect(first.stall.duration >= 0.5 && first.stall.duration <= longest + 0.005, "The 1 s stall was reported with a duration of \(String(format: "%.3f", first.stall.duration)) s; expected between the threshold, 0.5 s, and \(String(format: "%.2f", longest)) s (from queueing the block to the report): the time from the moment the unanswered ping was sent to the moment the queue ran it (not from when the lateness was noticed, nor from start()), in seconds.")
        #expect(reports.allSatisfy { $0.onReportQueue }, "The report callback did not run on the report queue given to init. Deliver with reportQueue.async.")
        monitor.stop()
    }

    @Test("A queue kept busy with 100 ms blocks (interval 50 ms, threshold 600 ms) is not reported as stalled")
    func busyButResponsiveIsNoStall() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "a busy but responsive queue")
            ReportTests.busyButResponsive()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "a busy but responsive queue", crashHint: ReportTests.crashHint)
    }

    static func busyButResponsive() {
        let lab = StallLab("busy queue")
        let monitor = lab.makeMonitor(thresholdMs: 600, intervalMs: 50)
        monitor.start()
        // Meanwhile a second monitor, of another queue, must report a real stall: the proof that
        // silence about the busy queue comes from a working monitor.
        let proof = StallLab("stalled queue")
        let proofMonitor = proof.makeMonitor(thresholdMs: 100, intervalMs: 20)
        proofMonitor.start()
        // 1.5 s of 100 ms blocks with a standing backlog: each block queues the next one as it
        // starts, so one block is always waiting behind the running one. A ping sent meanwhile
        // runs after that next block: it waits up to about 200 ms, well within the threshold, yet
        // at every moment some ping is waiting. A monitor that measures a stall from the first
        // unanswered ping until none is in flight (a ping on every tick) adds up their lateness
        // into a stall that never was.
        let done = DispatchSemaphore(value: 0)
        let watched = lab.watched
        @Sendable func busy(_ remaining: Int) {
            if remaining > 1 { watched.async { busy(remaining - 1) } }
            Thread.sleep(forTimeInterval: 0.1)
            if remaining == 1 { done.signal() }
        }
        watched.async { busy(15) }
        guard StopTests.provesItWorks(proof) != nil else { return }
        guard Deadline.wait(for: done, seconds: 1.5 + Deadline.promptSeconds, in: "the busy watched queue",
                            waitingFor: "fifteen 100 ms blocks running", hint: "Something your monitor sent to the watched queue did not return: a ping must be a tiny block that never waits.")
        else { return }
        guard lab.drain() else { return }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(lab.count == 0, "The watched queue ran fifteen 100 ms blocks in a row, one always waiting behind the running one, so every ping was answered within about 200 ms (threshold 600 ms), and \(lab.count) stall(s) were reported \(lab.durations). Compare how long one ping waited with the threshold, not with the interval; send no new ping while one is unanswered, and time each stall from that one ping: a stall timed from the first unanswered ping until none is in flight adds up the lateness of pings that each answered in time.")
        monitor.stop()
        proofMonitor.stop()
    }

    @Test("Two stalls separated by a responsive pause give two reports")
    func twoStallsTwoReports() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "two stalls")
            ReportTests.twoStalls()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "two stalls", crashHint: ReportTests.crashHint)
    }

    static func twoStalls() {
        let lab = StallLab("two stalls")
        let monitor = lab.makeMonitor(thresholdMs: 150, intervalMs: 50)
        monitor.start()
        guard lab.stall(seconds: 0.7) != nil else { return }
        guard lab.waitForReport(1, missing: "The watched queue was blocked for 700 ms (threshold 150 ms, interval 50 ms), and no stall was reported within \(StallLab.deliveryGrace) s after it answered. \(StallLab.noReportHint)")
        else { return }
        // Ten responsive intervals between the stalls.
        Thread.sleep(forTimeInterval: 0.5)
        guard lab.stall(seconds: 0.7) != nil else { return }
        _ = lab.waitForReport(2, missing: "Two 700 ms stalls half a second apart gave \(lab.count) report(s) \(lab.durations); expected two. After a stall is reported, the next answered ping ends it: the monitor must be ready to report the next one.")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(lab.count <= 2, "Two 700 ms stalls gave \(lab.count) reports \(lab.durations); expected two, one per stall.")
        monitor.stop()
    }
}
