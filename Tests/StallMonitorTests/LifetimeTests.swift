import Dispatch
import Foundation
import KataTestSupport
import StallMonitor
import Testing

/// A monitor's life: freed when nobody references it (the timer's handler must not keep it), and
/// one timer however often start() is called. Isolated: a source released before it was resumed,
/// or resumed twice, traps.
@Suite("Lifetime", .exitIsAFailure)
struct LifetimeTests {
    static let crashHint = "libdispatch traps on a DispatchSource released before it was ever resumed (a monitor freed without start(), with its timer made in init), on a second resume (start() called twice), and on a sync onto the queue the caller runs on (a monitor let go inside its report callback runs its deinit on the report queue)."

    @Test("A monitor released without stop() is freed, started or not, also inside its own report callback, and stops reporting")
    func releasedMonitorIsFreed() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "releasing a monitor")
            LifetimeTests.releasedIsFreed()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "releasing a monitor", crashHint: LifetimeTests.crashHint)
    }

    static func releasedIsFreed() {
        let idle = StallLab("never started")
        let neverStarted = WeakMonitor(idle.makeMonitor(thresholdMs: 100, intervalMs: 20))
        #expect(neverStarted.value == nil, "A monitor that was never started was not freed when its last reference went away: something keeps it (a closure or a timer capturing self strongly).")

        // Beside it, monitors whose owner lets go inside the report callback, as an app that stops
        // watching once it has seen a stall: the deinit runs on the report queue, inside the
        // callback or just after it, unless a ping or a tick under way still holds the monitor
        // at that moment (then it runs there); three of them make that unlikely for all at once.
        // Their first stall runs while the other monitor proves it works.
        let insides = (1...3).map { StallLab("released inside its report callback \($0)") }
        let releasedInside = insides.map { inside in
            let released = WeakMonitor()
            let owner = Locked<StallMonitor?>(nil)
            let monitor = inside.makeMonitor(thresholdMs: 100, intervalMs: 20) { _ in
                let last = owner.withLock { held -> StallMonitor? in
                    defer { held = nil }
                    return held
                }
                withExtendedLifetime(last) {}  // the owner's reference ends here, in the callback
            }
            released.value = monitor
            owner.withLock { $0 = monitor }
            monitor.start()
            return released
        }

        let lab = StallLab("released")
        let released = WeakMonitor()
        do {
            let monitor = lab.makeMonitor(thresholdMs: 100, intervalMs: 20)
            released.value = monitor
            monitor.start()
            for inside in insides { inside.watched.async { Thread.sleep(forTimeInterval: 0.7) } }
            guard StopTests.provesItWorks(lab) != nil else { return }
            withExtendedLifetime(monitor) {}
        }
        for (inside, released) in zip(insides, releasedInside) {
            guard releasedInsideIsFreed(inside, released) else { return }
        }
        let before = lab.count
        // The last reference is gone. Pings or a timer tick in flight may hold it for a moment.
        let freed = Deadline.waitUntil(seconds: Deadline.promptSeconds, in: "releasing a started monitor",
                                       waitingFor: "the monitor being freed",
                                       hint: "Its timer's event handler (or a ping) holds the monitor strongly: a cycle monitor → timer → handler → monitor. Capture [weak self].") {
            released.value == nil
        }
        guard freed else { return }
        for inside in insides { inside.watched.async { Thread.sleep(forTimeInterval: 0.5) } }
        guard lab.stall(seconds: 0.5) != nil, insides.allSatisfy({ $0.drain() }) else { return }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(lab.count == before, "A monitor was released, and a later stall of its queue was still reported (\(lab.count) reports \(lab.durations)): its timer still runs. Cancel the timer in deinit, and let nothing but the monitor keep it.")
        for inside in insides {
            #expect(inside.count == 1, "A monitor let go inside its report callback, and a later stall of its queue was still reported (\(inside.count) reports \(inside.durations)): its timer still runs. Cancel the timer in deinit, and let nothing but the monitor keep it.")
        }
    }

    /// The monitor let go inside its report callback: reported once, then freed, and its report
    /// queue still runs what is queued on it (its deinit there returned).
    static func releasedInsideIsFreed(_ inside: StallLab, _ monitor: WeakMonitor) -> Bool {
        guard inside.hasReport(within: StallLab.deliveryGrace) else {
            Issue.record("The watched queue (\(inside.name)) was blocked for 700 ms (threshold 100 ms, interval 20 ms), and no stall was reported within \(StallLab.deliveryGrace) s after it answered. \(StallLab.noReportHint)")
            return false
        }
        let freed = Deadline.waitUntil(seconds: Deadline.promptSeconds, in: "a monitor let go inside its report callback",
                                       waitingFor: "the monitor being freed",
                                       hint: "Its owner let go inside the report callback: nothing else may keep it (a closure or a timer capturing self strongly).") {
            monitor.value == nil
        }
        guard freed else { return false }
        let queueRuns = DispatchSemaphore(value: 0)
        inside.reportQueue.async { queueRuns.signal() }
        return Deadline.wait(for: queueRuns, seconds: Deadline.promptSeconds, in: "the report queue of a monitor let go inside its report callback",
                             waitingFor: "a block queued after the release running",
                             hint: "The monitor's deinit ran on the report queue, inside the callback or just after it, and did not return. A deinit there must not wait for the report queue (a sync onto the queue it runs on) nor for a lock that the delivery still holds.")
    }

    @Test("start() from 2 threads at once and again: no crash, one timer, one report per stall")
    func startTwiceRunsOneTimer() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "start() called three times")
            LifetimeTests.startTwice()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "start() called three times", crashHint: LifetimeTests.crashHint + " Two threads calling start() at once must not both create or resume a timer: decide under a lock.")
    }

    static func startTwice() {
        let lab = StallLab("started three times")
        let monitor = lab.makeMonitor(thresholdMs: 100, intervalMs: 20)
        guard ThreadGang.run(2, seconds: 2, in: "start() called from 2 threads at once", { _ in monitor.start() }) else { return }
        monitor.start()
        guard let stalls = StopTests.provesItWorks(lab) else { return }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(lab.count <= stalls, "After start() was called three times, \(stalls) stall(s) of 700 ms gave \(lab.count) reports \(lab.durations). start() on a started monitor does nothing: one timer, one report per stall.")
        monitor.stop()
        countPings()
    }

    /// With a threshold of 0, every answered ping waited longer than the threshold, so a monitor
    /// that decides when the ping is answered reports every ping: the reports count the pings.
    /// One timer sends at most one ping per interval; a second start() half an interval later
    /// that starts a second timer doubles that. (A monitor that decides on the timer's tick
    /// reports nearly nothing here, and passes: this is an upper bound.)
    static func countPings() {
        let lab = StallLab("pings counted")
        let monitor = lab.makeMonitor(thresholdMs: 0, intervalMs: 20)
        let began = StallLab.now
        monitor.start()
        Thread.sleep(forTimeInterval: 0.01)
        monitor.start()
        Thread.sleep(forTimeInterval: 0.6)
        monitor.stop()
        let seconds = Double(StallLab.now &- began) / 1e9
        let oneTimer = Int(seconds / 0.02) + 1
        // A repeating timer never fires more often than its schedule: late ticks are merged.
        let limit = oneTimer + oneTimer / 5 + 3
        #expect(lab.count <= limit, "With a threshold of 0 every answered ping is a stall, and \(lab.count) were reported in \(String(format: "%.2f", seconds)) s with an interval of 20 ms: one timer sends at most \(oneTimer) pings in that time, one per tick. More reports than that mean more pings than one timer sends: a second timer, started by the second start() half an interval after the first (start() on a started monitor must do nothing), or more than one ping per tick.")
    }
}
