import Dispatch
import Foundation
import KataTestSupport
import StallMonitor
import Testing

/// stop() ends the monitor's work, not only its reports: a timer left running after stop() wakes
/// a thread every interval, and its pings keep reaching the watched queue (the main thread, in an
/// app) for as long as the monitor lives. Reports are no way to see it: a stopped monitor delivers
/// none, running or not. So the check counts how often the process's threads wake while nothing
/// but the stopped monitor could wake them. Isolated: the count is the whole process's, and a
/// source cancelled before it was resumed traps.
@Suite("After stop()", .exitIsAFailure)
struct QuietAfterStopTests {
    static let place = "a stopped monitor kept alive"
    static let intervalMs = 5
    /// How long the process is watched after stop() returned.
    static let windowSeconds = 0.4
    /// A timer still running at 5 ms wakes its queue's thread about 80 times in 0.4 s, and each
    /// ping wakes the watched queue's thread too; a stopped monitor wakes nothing. The rest of the
    /// isolated process sleeps: a few switches at most.
    static let allowedSwitches = 20

    @Test("After stop() returns, the monitor does no more work: its timer is cancelled, and no ping reaches the watched queue")
    func stopEndsTheWork() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: QuietAfterStopTests.place)
            QuietAfterStopTests.quietAfterStop()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: QuietAfterStopTests.place, crashHint: StopTests.crashHint)
    }

    static func quietAfterStop() {
        let lab = StallLab("stopped and kept")
        // With a threshold of 0 every answered ping is reported: the reports prove that pings flow.
        let monitor = lab.makeMonitor(thresholdMs: 0, intervalMs: intervalMs)
        monitor.start()
        guard lab.waitForReport(3, missing: "A started monitor with a threshold of 0 and an interval of \(intervalMs) ms reported \(lab.count) ping(s) within \(StallLab.deliveryGrace) s; every answered ping waited longer than 0 ms, so each should be reported. \(StallLab.noReportHint)")
        else { return }
        monitor.stop()
        // Whatever was sent before stop() returned runs now; a tick already under way ends.
        guard lab.drain() else { return }
        Thread.sleep(forTimeInterval: 0.05)
        let before = processContextSwitches()
        let began = StallLab.now
        Thread.sleep(forTimeInterval: windowSeconds)
        let switches = processContextSwitches() - before
        let seconds = Double(StallLab.now &- began) / 1e9
        #expect(switches <= allowedSwitches, "After stop() returned (and the monitor was kept, as its owner keeps it), the process's threads were woken \(switches) times in \(String(format: "%.2f", seconds)) s with nothing else running; a stopped monitor wakes nothing (a timer with an interval of \(intervalMs) ms that still fires wakes a thread about \(Int(seconds * 1000) / intervalMs) times in that time). Something still runs every interval: stop() must cancel the timer, and no ping may be sent after it.")
        withExtendedLifetime(monitor) {}
    }
}
