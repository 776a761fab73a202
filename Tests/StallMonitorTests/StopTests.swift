import Dispatch
import Foundation
import KataTestSupport
import StallMonitor
import Testing

/// stop(): safe in every situation, and final. Each check first proves that the monitor reports a
/// stall (threshold 100 ms, interval 20 ms, a 700 ms stall, repeated once if unreported), then stops it. All run isolated: a
/// source cancelled or released while suspended, or resumed twice, traps.
@Suite("Stopping", .exitIsAFailure)
struct StopTests {
    static let crashHint = "libdispatch traps on a DispatchSource released or cancelled before it was ever resumed, and on a resume after cancel() or a second resume: create and resume the timer in start(), keep only a resumed timer, and cancel it at most once."

    /// Stalls each lab's queue for 700 ms at once and waits until each monitor reported it: the
    /// proof that the monitor works, before a check looks at what it must not do. 700 ms for a
    /// threshold of 100 ms, and one more stall for a monitor that stayed silent: on this loaded
    /// 2-core machine a timer tick came hundreds of milliseconds late. Returns how many stalls it
    /// took (1 or 2), or nil after recording the failure.
    @discardableResult
    static func provesItWorks(_ labs: StallLab...) -> Int? {
        for attempt in 1...2 {
            let silent = labs.filter { $0.count == 0 }
            guard let first = silent.first else { return attempt - 1 }
            for lab in silent.dropFirst() { lab.watched.async { Thread.sleep(forTimeInterval: 0.7) } }
            guard first.stall(seconds: 0.7) != nil else { return nil }
            for lab in silent.dropFirst() { guard lab.drain() else { return nil } }
            let grace = attempt == 1 ? 0.5 : StallLab.deliveryGrace
            let end = StallLab.now + UInt64(grace * 1e9)
            for lab in silent {
                let left = Double(end > StallLab.now ? end - StallLab.now : 0) / 1e9
                _ = lab.hasReport(within: left)
            }
        }
        if let silent = labs.first(where: { $0.count == 0 }) {
            Issue.record("The watched queue (\(silent.name)) was blocked twice for 700 ms (threshold 100 ms, interval 20 ms), and no stall was reported within \(StallLab.deliveryGrace) s after it answered. \(StallLab.noReportHint)")
            return nil
        }
        return 2
    }

    @Test("stop() before start() and twice: no crash, and a stopped monitor never reports")
    func stopBeforeStartAndTwice() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "stop() before start() and twice")
            StopTests.beforeStartAndTwice()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "stop() before start() and twice", crashHint: StopTests.crashHint)
    }

    static func beforeStartAndTwice() {
        let early = StallLab("stopped before start")
        let stoppedFirst = early.makeMonitor(thresholdMs: 100, intervalMs: 20)
        stoppedFirst.stop()
        stoppedFirst.stop()
        stoppedFirst.start()  // a stopped monitor stays stopped

        let lab = StallLab("stopped twice")
        let monitor = lab.makeMonitor(thresholdMs: 100, intervalMs: 20)
        monitor.start()
        early.watched.async { Thread.sleep(forTimeInterval: 0.7) }  // stalls the first one too
        guard provesItWorks(lab) != nil, early.drain() else { return }
        let before = lab.count
        monitor.stop()
        monitor.stop()
        guard lab.stall(seconds: 0.5) != nil else { return }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(lab.count == before, "A stall after stop() was reported: \(lab.count) reports \(lab.durations), expected only the \(before) before stop(). stop() cancels the timer, and no report may be delivered after it returned.")
        #expect(early.count == 0, "A monitor on which stop() was called before start() reported \(early.count) stall(s). stop() is final: a start() after it does nothing.")
    }

    @Test("stop() from 4 threads at once during a stall: no crash, nothing reported after")
    func stopFromFourThreads() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "stop() from 4 threads at once")
            StopTests.fromFourThreads()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "stop() from 4 threads at once", crashHint: StopTests.crashHint + " Four threads stopping at once must not cancel or release the same timer twice: take it out under a lock.")
    }

    static func fromFourThreads() {
        let lab = StallLab("stopped from 4 threads")
        let monitor = lab.makeMonitor(thresholdMs: 100, intervalMs: 20)
        monitor.start()
        guard provesItWorks(lab) != nil else { return }
        let before = lab.count
        // A second stall, in progress while 4 threads stop the monitor at the same moment.
        let release = DispatchSemaphore(value: 0)
        lab.watched.async { _ = release.wait(timeout: .now() + 5) }
        Thread.sleep(forTimeInterval: 0.5)
        let stopped = ThreadGang.run(4, seconds: 2, in: "stop() called from 4 threads at once") { _ in monitor.stop() }
        release.signal()
        guard stopped, lab.drain() else { return }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(lab.count == before, "A stall in progress while 4 threads called stop() was reported after stop() returned: \(lab.count) reports \(lab.durations), expected only the \(before) before. Check the stop flag (under a lock) when a report is delivered.")
        // Then 100 fresh started monitors, each stopped by 4 threads released together: an
        // unprotected "take the timer, cancel it" lets two threads release the same timer.
        let monitors = (0..<100).map { _ in lab.makeMonitor(thresholdMs: 100, intervalMs: 20) }
        monitors.forEach { $0.start() }
        let together = StartBarrier(parties: 4)
        ThreadGang.run(4, in: "100 monitors, each stopped from 4 threads at once", progress: { together.rounds }) { _ in
            for monitor in monitors {
                guard together.arrive() else { return }
                monitor.stop()
            }
        }
    }

    @Test("stop() from inside the report callback returns, and nothing is reported after")
    func stopInsideReport() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "stop() inside the report callback")
            StopTests.insideReport()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "stop() inside the report callback", crashHint: StopTests.crashHint)
    }

    static func insideReport() {
        let lab = StallLab("stopped from its callback")
        let target = WeakMonitor()
        let returned = DispatchSemaphore(value: 0)
        let monitor = lab.makeMonitor(thresholdMs: 100, intervalMs: 20) { _ in
            target.value?.stop()
            returned.signal()
        }
        target.value = monitor
        monitor.start()
        guard provesItWorks(lab) != nil else { return }
        guard Deadline.wait(for: returned, seconds: 2, in: "stop() called inside the report callback",
                            waitingFor: "stop() returning",
                            hint: "stop() waits for something the delivery holds: a non-recursive lock taken around the report call, or reportQueue.sync from the report queue itself.")
        else { return }
        let before = lab.count
        guard lab.stall(seconds: 0.5) != nil else { return }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(lab.count == before, "After stop() was called inside the report callback, another stall was reported: \(lab.count) reports \(lab.durations), expected \(before).")
    }

    @Test("A stall in progress when stop() returns is never reported, even when the report queue is busy across stop()")
    func noReportAfterStop() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "stop() while the report queue is busy")
            StopTests.noReportAfterStopWhileBusy()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "stop() while the report queue is busy", crashHint: StopTests.crashHint)
    }

    /// Two monitors share one report queue. Monitor A's stall ends before stop(), so its report is
    /// already queued behind the busy report queue when stop() is called; monitor B's stall is
    /// still going on when stop() returns. Neither may be reported.
    ///
    /// Meanwhile monitor C is stopped from another thread while its report callback is running
    /// (the check holds the callback there): stop() may return only once the callback has
    /// returned. A delivery that reads the stop flag under the lock, lets go of it, and only then
    /// calls the callback can call it after stop() returned; stop() cannot tell such a delivery
    /// from one inside the callback, so a right stop() waits for both. The window between the
    /// flag and the call is a few instructions wide: the held callback makes it as wide as the
    /// check needs, every run.
    static func noReportAfterStopWhileBusy() {
        let reports = DispatchQueue(label: "shared reports")
        let a = StallLab("A (answered before stop)", reportQueue: reports)
        let b = StallLab("B (still stalled at stop)", reportQueue: reports)
        let monitorA = a.makeMonitor(thresholdMs: 100, intervalMs: 20)
        let monitorB = b.makeMonitor(thresholdMs: 100, intervalMs: 20)
        // C's first report callback stays inside until the check lets it leave.
        let c = StallLab("C (delivering at stop)")
        let inCallback = DispatchSemaphore(value: 0)
        let leaveCallback = DispatchSemaphore(value: 0)
        let holdNext = Locked(true)
        let monitorC = c.makeMonitor(thresholdMs: 100, intervalMs: 20) { _ in
            guard holdNext.withLock({ hold in defer { hold = false }; return hold }) else { return }
            inCallback.signal()
            _ = leaveCallback.wait(timeout: .now() + 5)
        }
        monitorA.start()
        monitorB.start()
        monitorC.start()
        // Whether C's callback was still inside when stop() returned; set by the stopping thread.
        let callbackInside = Locked(true)
        let stopReturnedInside = Locked<Bool?>(nil)
        func letCallbackLeave() {
            callbackInside.withLock { $0 = false }
            leaveCallback.signal()
        }
        defer { letCallbackLeave() }
        // C stalls beside A and B, but out of provesItWorks: its report queue stays blocked by
        // the held callback, so it cannot be drained.
        c.watched.async { Thread.sleep(forTimeInterval: 0.7) }
        guard provesItWorks(a, b) != nil else { return }
        if inCallback.wait(timeout: .now() + StallLab.deliveryGrace) != .success {
            // A late tick can miss one stall, as provesItWorks allows: one more.
            c.watched.async { Thread.sleep(forTimeInterval: 0.7) }
            guard inCallback.wait(timeout: .now() + 0.7 + StallLab.deliveryGrace + 0.5) == .success else {
                Issue.record("The watched queue (\(c.name)) was blocked twice for 700 ms (threshold 100 ms, interval 20 ms), and no stall was reported within \(StallLab.deliveryGrace) s after it answered. \(StallLab.noReportHint)")
                return
            }
        }
        let stoppedC = ThreadGang.spawn {
            monitorC.stop()
            let inside = callbackInside.current
            stopReturnedInside.withLock { $0 = inside }
        }
        let beforeA = a.count, beforeB = b.count

        // The report queue is busy from here until after stop() has returned.
        let reportsBusy = DispatchSemaphore(value: 0)
        let releaseReports = DispatchSemaphore(value: 0)
        reports.async {
            reportsBusy.signal()
            _ = releaseReports.wait(timeout: .now() + 5)
        }
        defer { releaseReports.signal() }
        guard Deadline.wait(for: reportsBusy, seconds: Deadline.promptSeconds, in: "the shared report queue", waitingFor: "the check's block starting")
        else { return }
        // B stalls until the check releases it, after stop().
        let releaseB = DispatchSemaphore(value: 0)
        b.watched.async { _ = releaseB.wait(timeout: .now() + 5) }
        defer { releaseB.signal() }
        // A stalls for 700 ms and answers: its report is on its way to the busy report queue.
        guard a.stall(seconds: 0.7, drainReports: false) != nil else { return }
        Thread.sleep(forTimeInterval: 0.1)

        let stopped = ThreadGang.spawn { monitorA.stop(); monitorB.stop() }
        guard stopped.wait(timeout: .now() + 2) == .success else {
            Issue.record("stop() did not return within 2 s while the report queue was busy with other work. stop() must not wait for the report queue (no reportQueue.sync): check a stop flag when each report is delivered instead.")
            return
        }
        releaseB.signal()
        guard b.drain(reports: false) else { return }
        Thread.sleep(forTimeInterval: 0.1)
        releaseReports.signal()
        guard a.drain(), b.drain() else { return }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(a.count == beforeA, "A stall that ended just before stop() was reported after stop() returned (\(a.count) reports \(a.durations), expected only the \(beforeA) before). Its report was already queued behind the busy report queue: check the stop flag when the report is delivered, not when it is scheduled.")
        #expect(b.count == beforeB, "A stall still going on when stop() returned was reported when the queue answered (\(b.count) reports \(b.durations), expected only the \(beforeB) before). After stop() returns, nothing is delivered.")

        // C: its callback has been held inside for the whole of A's and B's story (over a second).
        letCallbackLeave()
        guard stoppedC.wait(timeout: .now() + 2) == .success else {
            Issue.record("stop(), called from another thread while a report callback was running, did not return within 2 s after that callback returned. stop() may wait for a delivery in progress, but nothing more.")
            return
        }
        #expect(stopReturnedInside.current == false, "stop(), called from another thread while a report callback was running (the check held it inside), returned before the callback did. Then a delivery that has checked the stop flag but not yet called the callback can also be overtaken: it calls the callback after stop() returned. Call the callback while still holding the lock that stop() takes, so that stop() waits for a delivery in progress (a recursive lock, so that stop() from inside the callback still works).")
    }
}
