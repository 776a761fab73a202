#if KATA_MODEL
import Dispatch
import KataModel

/// The systematic checks of StallMonitor: start, tick, stop and release in every order the
/// strategy finds. The monitor pings every 100 ms and reports a ping that waited 250 ms or more;
/// the watched queue stalls by running a block that waits 0.45 virtual seconds. The timer twin
/// fires on the virtual clock, which moves only when no thread can run, so a stall, a tick and
/// a `stop()` that fall on the same instant are interleaved like any other calls. A timer repeats
/// for ever: each check states its properties, then ends the schedule's timers
/// (`ModelTimer.endAll()`) and waits for the blocks still queued. What the timer did after
/// `stop()` returned is counted before that, so a timer that `stop()` left running is a finding.
public let modelChecks: [ModelCheck] = [
    ModelCheck("stop() while a late report is on its way", zh: "迟到的报告正在送达时调用 stop()", stress: ["noReportAfterStop"]) {
        let lab = MonitorLab()
        let monitor = lab.makeMonitor()
        monitor.start()
        lab.stall(lab.watched, for: 0.45)
        // The report queue is busy until the same instant: the report waits behind it.
        lab.stall(lab.reportQueue, for: 0.45)
        let stopper = Model.spawn("stopper") {
            passVirtualTime(0.45)
            monitor.stop()
            lab.stopReturned = true
            Model.check(
                !lab.inReport,
                "stop() returned while the report callback was still running: once stop() has returned, no report may be in progress or arrive",
                zh: "报告回调仍在运行时 stop() 就返回了：stop() 返回后，不能有报告正在进行或到达")
        }
        Model.join(stopper)
        passVirtualTime(0.5)
        lab.end()
    },
    ModelCheck("a late ping is reported once", zh: "迟到的 ping 只报告一次", stress: ["oneStallOneReport"]) {
        let lab = MonitorLab()
        let monitor = lab.makeMonitor()
        monitor.start()
        lab.stall(lab.watched, for: 0.45)
        passVirtualTime(0.7)
        monitor.stop()
        Model.check(
            lab.reports.count == 1,
            "the watched queue did not answer from 0 s to 0.45 s (interval 0.1 s, threshold 0.25 s), then answered every ping at once until 0.7 s: \(lab.reports.count) report(s) \(lab.reports); exactly one was expected",
            zh: "被监视的队列从 0 秒到 0.45 秒没有响应（间隔 0.1 秒，阈值 0.25 秒），之后到 0.7 秒为止每个 ping 都立即响应：报告了 \(lab.reports.count) 次 \(lab.reports)；应恰好一次")
        if let duration = lab.reports.first {
            Model.check(
                duration >= 0.25 - 1e-9 && duration <= 0.45 + 1e-9,
                "the stall was reported with a duration of \(duration) s: the unanswered ping was sent at 0.1 s or later and answered at 0.45 s, so its wait lies between the threshold (0.25 s) and 0.45 s",
                zh: "报告的卡顿时长为 \(duration) 秒：未响应的 ping 在 0.1 秒或之后发出，在 0.45 秒得到响应，所以它的等待应在阈值（0.25 秒）与 0.45 秒之间")
        }
        lab.end()
    },
    ModelCheck("stop() beside a tick ends the work", zh: "与一次触发同时调用 stop() 后不再有工作", stress: ["stopEndsTheWork"]) {
        let lab = MonitorLab()
        // A threshold of 0: every answered ping is reported, which shows that pings flow.
        let monitor = lab.makeMonitor(threshold: .nanoseconds(0))
        monitor.start()
        let stopper = Model.spawn("stopper") {
            // The timer fires at 0.3 s too: stop() meets a tick.
            passVirtualTime(0.3)
            monitor.stop()
        }
        Model.join(stopper)
        Model.check(
            !lab.reports.isEmpty,
            "a started monitor with a threshold of 0 and an interval of 0.1 s reported nothing in 0.3 s: every answered ping should be reported",
            zh: "阈值为 0、间隔 0.1 秒的已启动监视器在 0.3 秒内没有报告：每个得到响应的 ping 都应被报告")
        // What stop() left on its way (a tick under way, its ping) runs before time moves on.
        passVirtualTime(0.001)
        let before = lab.work()
        passVirtualTime(0.5)
        let after = lab.work()
        Model.check(
            after == before,
            "after stop() returned (and what was under way ended), the monitor's timer handler ran \(after.ticks - before.ticks) time(s) and \(after.pings - before.pings) ping(s) reached the watched queue in 0.5 s: stop() must cancel the timer",
            zh: "stop() 返回（且进行中的工作结束）后，0.5 秒内监视器的定时器处理程序又运行了 \(after.ticks - before.ticks) 次，\(after.pings - before.pings) 个 ping 到达被监视的队列：stop() 必须取消定时器")
        lab.end()
        withExtendedLifetime(monitor) {}
    },
    ModelCheck("start() from two threads, then again", zh: "两个线程同时调用 start()，然后再调用一次", stress: ["startTwiceRunsOneTimer"]) {
        let lab = MonitorLab()
        let monitor = lab.makeMonitor()
        let starters = (1...2).map { index in Model.spawn("starter \(index)") { monitor.start() } }
        Model.join(starters)
        monitor.start()
        lab.stall(lab.watched, for: 0.45)
        passVirtualTime(0.6)
        let running = ModelTimer.all.filter(\.isArmed).count
        Model.check(
            running == 1,
            "start() called from two threads at once and then again left \(running) timer(s) firing: exactly one was expected",
            zh: "两个线程同时调用 start() 后再调用一次，结果有 \(running) 个定时器在触发：应恰好一个")
        Model.check(
            lab.reports.count == 1,
            "after three start() calls, one stall (0 s to 0.45 s) gave \(lab.reports.count) report(s): one was expected",
            zh: "三次 start() 调用之后，一次卡顿（0 秒到 0.45 秒）产生了 \(lab.reports.count) 次报告：应为一次")
        monitor.stop()
        lab.end()
    },
    ModelCheck("stop() before start() and from two threads", zh: "start() 之前调用 stop()，以及两个线程同时调用 stop()", stress: ["stopBeforeStartAndTwice", "stopFromFourThreads"]) {
        let lab = MonitorLab()
        let early = lab.makeMonitor()
        early.stop()
        early.start()
        let monitor = lab.makeMonitor()
        monitor.start()
        lab.stall(lab.watched, for: 0.45)
        let stoppers = (1...2).map { index in
            Model.spawn("stopper \(index)") {
                passVirtualTime(0.45)
                monitor.stop()
                lab.stopReturned = true
            }
        }
        Model.join(stoppers)
        passVirtualTime(0.5)
        let firing = ModelTimer.all.filter(\.isArmed).map(\.name)
        Model.check(
            lab.reports.isEmpty || lab.reports.count == 1,
            "two monitors, one stopped before it was started and one stopped from two threads at the end of a stall, gave \(lab.reports.count) reports; at most one (before the stop) was expected",
            zh: "两个监视器（一个在 start() 之前停止，一个在卡顿结束时被两个线程同时停止）产生了 \(lab.reports.count) 次报告；最多应为一次（在停止之前）")
        Model.check(
            firing.isEmpty,
            "after stop() (before start(), and from two threads) the timer(s) \(firing) still fire: stop() must cancel the timer",
            zh: "stop()（在 start() 之前，以及两个线程同时调用）之后，定时器 \(firing) 仍在触发：stop() 必须取消定时器")
        lab.end()
        withExtendedLifetime(early) {}
    },
    ModelCheck("a started monitor released", zh: "释放已启动的监视器", stress: ["releasedMonitorIsFreed"]) {
        let lab = MonitorLab()
        weak var freed: StallMonitor?
        do {
            let unstarted = lab.makeMonitor()
            _ = unstarted
        }
        do {
            let monitor = lab.makeMonitor()
            freed = monitor
            monitor.start()
            lab.stall(lab.watched, for: 0.45)
            passVirtualTime(0.3)
        }
        // The last reference was the check's: a tick under way may hold the monitor a moment.
        passVirtualTime(0.001)
        Model.check(
            freed == nil,
            "a started monitor was still alive after its owner let it go: something the timer keeps holds it strongly (its handler or a ping should capture it weakly)",
            zh: "已启动的监视器在其所有者释放它之后仍然存活：定时器保留的某样东西强引用了它（它的处理程序或 ping 应弱引用它）")
        let before = lab.work()
        passVirtualTime(0.5)
        let after = lab.work()
        Model.check(
            after.ticks == before.ticks,
            "after the monitor was released, its timer's handler still ran \(after.ticks - before.ticks) time(s) in 0.5 s: the monitor's deinit must cancel its timer",
            zh: "监视器被释放后，0.5 秒内它的定时器处理程序仍运行了 \(after.ticks - before.ticks) 次：监视器的 deinit 必须取消定时器")
        lab.end()
    },
]

/// Lets `seconds` of virtual time pass on the calling thread (a wait nobody signals).
func passVirtualTime(_ seconds: Double) {
    _ = DispatchSemaphore(value: 0).wait(timeout: .now() + seconds)
}

/// A check's queues, monitor and observations. One logical thread runs at a time, so plain
/// properties are enough.
final class MonitorLab: @unchecked Sendable {
    let watched = DispatchQueue(label: "watched")
    let reportQueue = DispatchQueue(label: "report")
    var reports: [Double] = []
    var inReport = false
    var stopReturned = false

    func makeMonitor(threshold: DispatchTimeInterval = .milliseconds(250)) -> StallMonitor {
        StallMonitor(watching: watched, threshold: threshold, interval: .milliseconds(100), reportQueue: reportQueue) { [self] stall in
            Model.check(
                !stopReturned,
                "a stall of \(stall.duration) s was reported after stop() returned",
                zh: "stop() 返回之后仍报告了一次 \(stall.duration) 秒的卡顿")
            reports.append(stall.duration)
            inReport = true
            // A callback takes time: other threads may act while it runs.
            Model.point("the report callback runs")
            inReport = false
        }
    }

    /// Makes `queue` run nothing else for `seconds` of virtual time from now.
    func stall(_ queue: DispatchQueue, for seconds: Double) {
        queue.async { passVirtualTime(seconds) }
    }

    /// The timer handlers started so far, and the blocks the watched queue started.
    func work() -> Work {
        Work(ticks: ModelTimer.all.map(\.handlerStarts.count).reduce(0, +), pings: watched.model.started)
    }

    struct Work: Equatable {
        let ticks: Int
        let pings: Int
    }

    /// Ends the schedule's timers and waits for every block still queued.
    func end() {
        ModelTimer.endAll()
        Model.joinAll()
    }
}
#endif
