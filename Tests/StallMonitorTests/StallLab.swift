import Dispatch
import Foundation
import KataTestSupport
import StallMonitor
import Testing

/// A watched queue that a check stalls on purpose, a report queue, and every report delivered.
///
/// Time is the subject of this exercise, so the checks use wide margins and assert outcomes: how
/// many reports came, on which queue, after which event, with a duration within hundreds of
/// milliseconds of the stall the check made.
final class StallLab: @unchecked Sendable {
    struct Delivery: Sendable {
        let stall: Stall
        let onReportQueue: Bool
        /// `DispatchTime.now().uptimeNanoseconds` when the report callback ran.
        let at: UInt64
    }

    /// After the watched queue answered and the report queue ran what was queued on it, how long
    /// a correct monitor may still take to deliver (it may hop through a queue of its own).
    static let deliveryGrace = 1.0

    let name: String
    let watched: DispatchQueue
    let reportQueue: DispatchQueue
    private let key = DispatchSpecificKey<ObjectIdentifier>()
    let deliveries = Locked([Delivery]())

    init(_ name: String, reportQueue: DispatchQueue? = nil) {
        self.name = name
        self.watched = DispatchQueue(label: "watched \(name)")
        self.reportQueue = reportQueue ?? DispatchQueue(label: "reports \(name)")
        self.reportQueue.setSpecific(key: key, value: ObjectIdentifier(self.reportQueue))
    }

    static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    var count: Int { deliveries.current.count }

    /// Records a report; call it from the monitor's callback.
    func record(_ stall: Stall) {
        let onReportQueue = DispatchQueue.getSpecific(key: key) == ObjectIdentifier(reportQueue)
        deliveries.withLock { $0.append(Delivery(stall: stall, onReportQueue: onReportQueue, at: Self.now)) }
    }

    /// A monitor of this lab's queue that records its reports, then runs `also` (if any).
    func makeMonitor(thresholdMs: Int, intervalMs: Int, also: (@Sendable (Stall) -> Void)? = nil) -> StallMonitor {
        StallMonitor(watching: watched, threshold: .milliseconds(thresholdMs), interval: .milliseconds(intervalMs),
                     reportQueue: reportQueue) { [self] stall in
            record(stall)
            also?(stall)
        }
    }

    /// Blocks the watched queue for `seconds` (the stall), and returns when the block is over and
    /// the watched queue has run what was queued behind it (a correct monitor's ping). With
    /// `drainReports`, also waits for the report queue to run what was queued on it by then.
    /// Returns when the block was queued, when it ended, or nil after recording a missed deadline.
    /// `inline` runs the block with `watched.sync` on the calling thread, so that it starts at
    /// once instead of whenever a worker thread wakes up (on a loaded machine, up to 200 ms later).
    @discardableResult
    func stall(seconds: Double, drainReports: Bool = true, inline: Bool = false) -> (queued: UInt64, end: UInt64)? {
        let times = Locked((queued: Self.now, end: UInt64(0)))
        if inline {
            watched.sync {
                Thread.sleep(forTimeInterval: seconds)
                times.withLock { $0.end = Self.now }
            }
            guard drain(reports: drainReports) else { return nil }
            return times.current
        }
        let done = DispatchSemaphore(value: 0)
        watched.async {
            Thread.sleep(forTimeInterval: seconds)
            times.withLock { $0.end = Self.now }
            done.signal()
        }
        guard Deadline.wait(for: done, seconds: seconds + Deadline.promptSeconds, in: "the watched queue of \(name)",
                            waitingFor: "the check's own \(Int(seconds * 1000)) ms block starting and ending",
                            hint: "Something your monitor sent to the watched queue did not return: a ping must be a tiny block that never waits.")
        else { return nil }
        guard drain(reports: drainReports) else { return nil }
        return times.current
    }

    /// Waits until the watched queue, then (with `reports`) the report queue, have run everything
    /// queued on them so far. Records a missed deadline and returns false.
    @discardableResult
    func drain(reports: Bool = true) -> Bool {
        let watchedDone = DispatchSemaphore(value: 0)
        watched.async { watchedDone.signal() }
        guard Deadline.wait(for: watchedDone, seconds: Deadline.promptSeconds, in: "the watched queue of \(name)",
                            waitingFor: "a block queued after the stall running",
                            hint: "Something your monitor sent to the watched queue did not return: a ping must be a tiny block that never waits.")
        else { return false }
        guard reports else { return true }
        let reportsDone = DispatchSemaphore(value: 0)
        reportQueue.async { reportsDone.signal() }
        return Deadline.wait(for: reportsDone, seconds: Deadline.promptSeconds, in: "the report queue of \(name)",
                             waitingFor: "a block queued after the report running",
                             hint: "Your monitor blocked the report queue: delivering a report must not wait for anything.")
    }

    /// After `stall` returned: waits up to `deliveryGrace` for the `number`th report. On a miss,
    /// records `missing` and returns false.
    func waitForReport(_ number: Int, missing: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let end = Self.now + UInt64(Self.deliveryGrace * 1e9)
        while count < number {
            if Self.now >= end {
                Issue.record(Comment(rawValue: missing()), sourceLocation: sourceLocation)
                return false
            }
            usleep(1_000)
        }
        return true
    }

    /// True once at least `number` reports came, waiting at most `seconds`; records nothing.
    func hasReport(_ number: Int = 1, within seconds: Double) -> Bool {
        let end = Self.now + UInt64(seconds * 1e9)
        while count < number {
            if Self.now >= end { return false }
            usleep(1_000)
        }
        return true
    }

    /// The durations reported so far, for messages: "[0.58 s, 0.61 s]".
    var durations: String {
        "[" + deliveries.current.map { String(format: "%.2f s", $0.stall.duration) }.joined(separator: ", ") + "]"
    }
}

/// A weak reference that a check can read from any thread.
final class WeakMonitor: @unchecked Sendable {
    private let lock = NSLock()
    private weak var monitor: StallMonitor?

    init(_ monitor: StallMonitor? = nil) { self.monitor = monitor }

    var value: StallMonitor? {
        get { lock.lock(); defer { lock.unlock() }; return monitor }
        set { lock.lock(); monitor = newValue; lock.unlock() }
    }
}

extension StallLab {
    /// What a missing first report usually means, for every check that needs one.
    static let noReportHint = "Does start() create a DispatchSourceTimer on a private queue, set its handler, schedule it and resume it? Does the handler send a ping to the watched queue, and does the ping, when the queue runs it, deliver a Stall on the report queue if it waited longer than the threshold? A timer on the watched queue stalls with it and never sees the stall."
}
