import Dispatch
import Foundation

/// One stall: how long the watched queue did not answer, measured when it answered again.
public struct Stall: Sendable, Equatable {
    /// Seconds from the moment the unanswered ping was sent to the moment the queue ran it.
    public let duration: Double

    public init(duration: Double) {
        self.duration = duration
    }
}

/// A ping watchdog for one queue (the main thread, in an app).
///
/// Grader variant "DeinitWaitsForReports": the reference solution whose `deinit` first waits for
/// the report queue (`reportQueue.sync {}`), so that no delivery is still running once the monitor
/// is gone. Its owner can let go inside the report callback: the deinit then runs on the report
/// queue itself, and a sync onto the queue it runs on traps in libdispatch.
///
/// Reference solution. Every `interval` a `DispatchSourceTimer` fires on a private serial queue
/// and sends one ping (a tiny block) to the watched queue, unless the previous ping is still
/// unanswered. When the watched queue runs a ping (the pong), it compares how long the ping
/// waited with `threshold`: a ping that waited longer was a stall, and it is reported once, with
/// the time it waited. Only one ping is ever outstanding, so pings cannot queue up behind a
/// stall and be reported one by one; a queue that is busy but answers within the threshold is
/// never reported, however long each of its blocks is compared with the interval.
///
/// The timer runs on its own queue, never on the watched one: a stall of the watched queue would
/// stop the timer itself, and nothing would notice.
public final class StallMonitor: @unchecked Sendable {
    private let watched: DispatchQueue
    private let thresholdNanoseconds: UInt64
    private let interval: DispatchTimeInterval
    private let reportQueue: DispatchQueue
    private let report: @Sendable (Stall) -> Void

    /// Where the timer's handler runs: a private serial queue, never the watched queue.
    private let timerQueue = DispatchQueue(label: "StallMonitor.timer")

    /// Guards `timer`, `started` and `pingSentAt`.
    private let lock = NSLock()
    private var timer: DispatchSourceTimer?
    private var started = false
    /// `DispatchTime.now().uptimeNanoseconds` when the outstanding ping was sent; nil when the
    /// queue answered the last one.
    private var pingSentAt: UInt64?

    /// Guards `stopped` and every call of `report`: `stop()` takes it, so once `stop()` has
    /// returned, no delivery is between its check of `stopped` and its call of `report`. It is
    /// recursive so that `stop()` may be called from inside the report callback.
    private let deliveryLock = NSRecursiveLock()
    private var stopped = false

    /// Pings `queue` every `interval`; a ping not answered within `threshold` starts a stall,
    /// reported once, when the queue answers, on `reportQueue`.
    public init(watching queue: DispatchQueue, threshold: DispatchTimeInterval,
                interval: DispatchTimeInterval, reportQueue: DispatchQueue,
                report: @escaping @Sendable (Stall) -> Void) {
        self.watched = queue
        self.thresholdNanoseconds = Self.nanoseconds(threshold)
        self.interval = interval
        self.reportQueue = reportQueue
        self.report = report
    }

    deinit {
        // Wait for a delivery that may still be running on the report queue.
        reportQueue.sync {}
        // The timer is stored only once it has been resumed, so cancelling it here is safe
        // (releasing a source that was never resumed traps). Its handler holds `self` weakly,
        // so this deinit can run while the timer is still armed.
        timer?.cancel()
    }

    /// Starts the timer (a DispatchSourceTimer on a private queue). Calling it again does nothing.
    /// A monitor that was stopped never starts again.
    public func start() {
        deliveryLock.lock()
        let wasStopped = stopped
        deliveryLock.unlock()
        lock.lock()
        defer { lock.unlock() }
        guard !started, !wasStopped else { return }
        started = true
        let timer = DispatchSource.makeTimerSource(queue: timerQueue)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        // [weak self]: the source keeps its handler alive, and the monitor keeps the source.
        // A strong capture would make a cycle, and a monitor nobody uses would ping forever.
        timer.setEventHandler { [weak self] in self?.tick() }
        // A source is created suspended: resume it exactly once (a second resume traps).
        timer.resume()
        self.timer = timer
    }

    /// Stops the timer. After it returns, no report is delivered. Safe before start(), twice,
    /// concurrently, and from inside the report callback.
    public func stop() {
        deliveryLock.lock()
        stopped = true
        deliveryLock.unlock()
        lock.lock()
        let timer = self.timer
        self.timer = nil
        lock.unlock()
        // Only a resumed source is ever stored, so cancel (then release) is safe.
        timer?.cancel()
    }

    /// On the timer queue: send a ping unless one is still unanswered.
    private func tick() {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.lock()
        defer { lock.unlock() }
        guard pingSentAt == nil else { return }
        pingSentAt = now
        watched.async { [weak self] in self?.pong(sentAt: now) }
    }

    /// On the watched queue: it answered. A ping that waited longer than the threshold was a
    /// stall; its duration runs from the ping's sending to now.
    private func pong(sentAt: UInt64) {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.lock()
        pingSentAt = nil
        lock.unlock()
        let waited = now &- sentAt
        guard waited >= thresholdNanoseconds else { return }
        let stall = Stall(duration: Double(waited) / 1_000_000_000)
        reportQueue.async { [weak self] in self?.deliver(stall) }
    }

    /// On the report queue: `stopped` is checked here, at delivery, under the lock `stop()` takes.
    /// Checking it when the report is scheduled would let a report that was already queued
    /// (behind a busy report queue) arrive after `stop()` returned.
    private func deliver(_ stall: Stall) {
        deliveryLock.lock()
        defer { deliveryLock.unlock() }
        guard !stopped else { return }
        report(stall)
    }

    private static func nanoseconds(_ interval: DispatchTimeInterval) -> UInt64 {
        switch interval {
        case .seconds(let s): return UInt64(max(s, 0)) * 1_000_000_000
        case .milliseconds(let ms): return UInt64(max(ms, 0)) * 1_000_000
        case .microseconds(let us): return UInt64(max(us, 0)) * 1_000
        case .nanoseconds(let ns): return UInt64(max(ns, 0))
        case .never: return .max
        @unknown default: return .max
        }
    }
}
