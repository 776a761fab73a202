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

/// A ping watchdog for one queue: a right implementation in another style than the reference.
/// The timer, whether it started or ended, and the outstanding ping are confined to the timer's
/// serial queue (`start()` and `stop()` reach them with `sync`, the handler runs there, the pong
/// clears the ping with `async`); only the stop flag that deliveries read lives under a lock,
/// held across the report callback, so `stop()` cannot return while a delivery is in progress.
public final class StallMonitor: @unchecked Sendable {
    private let watched: DispatchQueue
    private let thresholdNanoseconds: UInt64
    private let interval: DispatchTimeInterval
    private let reportQueue: DispatchQueue
    private let report: @Sendable (Stall) -> Void
    private let timerQueue = DispatchQueue(label: "StallMonitor.timer")

    // Confined to `timerQueue`.
    private var timer: DispatchSourceTimer?
    private var started = false
    private var ended = false
    private var pingSentAt: UInt64?

    /// Guards `stopped` and every call of `report`; recursive for a `stop()` from the callback.
    private let deliveryLock = NSRecursiveLock()
    private var stopped = false

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
        // Nothing else can reach the monitor now; only a resumed timer is ever stored.
        timer?.cancel()
    }

    public func start() {
        timerQueue.sync {
            guard !started, !ended else { return }
            started = true
            let timer = DispatchSource.makeTimerSource(queue: timerQueue)
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.setEventHandler { [weak self] in self?.tick() }
            timer.resume()
            self.timer = timer
        }
    }

    public func stop() {
        deliveryLock.lock()
        stopped = true
        deliveryLock.unlock()
        timerQueue.sync {
            ended = true
            timer?.cancel()
            timer = nil
        }
    }

    /// On the timer queue.
    private func tick() {
        guard !ended, pingSentAt == nil else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        pingSentAt = now
        watched.async { [weak self] in self?.pong(sentAt: now) }
    }

    /// On the watched queue.
    private func pong(sentAt: UInt64) {
        let now = DispatchTime.now().uptimeNanoseconds
        timerQueue.async { [weak self] in self?.pingSentAt = nil }
        let waited = now &- sentAt
        guard waited >= thresholdNanoseconds else { return }
        let stall = Stall(duration: Double(waited) / 1_000_000_000)
        reportQueue.async { [weak self] in self?.deliver(stall) }
    }

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
