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
/// One `NSRecursiveLock` guards a state enum (idle, running with its timer, stopped) and the
/// outstanding ping; a report is delivered under the same lock, so `stop()` cannot return while
/// one is in progress, and a callback that calls `stop()` takes the lock again (recursive).
public final class StallMonitor: @unchecked Sendable {
    private let watched: DispatchQueue
    private let thresholdNanoseconds: UInt64
    private let interval: DispatchTimeInterval
    private let reportQueue: DispatchQueue
    private let report: @Sendable (Stall) -> Void
    private let timerQueue = DispatchQueue(label: "StallMonitor.timer")

    private enum State {
        case idle
        case running(DispatchSourceTimer)
        case stopped
    }

    /// Guards `state`, `pingSentAt` and every call of `report`.
    private let lock = NSRecursiveLock()
    private var state = State.idle
    private var pingSentAt: UInt64?

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
        // Only a resumed timer is ever stored in the state.
        if case .running(let timer) = state { timer.cancel() }
    }

    public func start() {
        lock.lock()
        defer { lock.unlock() }
        guard case .idle = state else { return }
        let timer = DispatchSource.makeTimerSource(queue: timerQueue)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
        state = .running(timer)
    }

    public func stop() {
        lock.lock()
        let previous = state
        state = .stopped
        lock.unlock()
        if case .running(let timer) = previous { timer.cancel() }
    }

    private func tick() {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.lock()
        defer { lock.unlock() }
        guard case .running = state, pingSentAt == nil else { return }
        pingSentAt = now
        watched.async { [weak self] in self?.pong(sentAt: now) }
    }

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

    private func deliver(_ stall: Stall) {
        lock.lock()
        defer { lock.unlock() }
        guard case .running = state else { return }
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
