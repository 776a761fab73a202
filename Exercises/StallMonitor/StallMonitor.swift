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
/// Your task (see README.md in this folder):
/// - `start()` creates a `DispatchSourceTimer` on a private serial queue (never the watched
///   queue) that fires every `interval`. Each tick sends one ping, a tiny block, to the watched
///   queue, unless the previous ping has not been answered yet.
/// - When the watched queue runs a ping, it has answered. A ping that waited `threshold` or
///   longer was a stall: deliver one `Stall` on `reportQueue`, whose `duration` is how long that
///   ping waited (from its sending to its answer). One report per stall, not one per tick.
/// - `stop()` cancels the timer. Once it has returned, `report` is never called again, even for
///   a report that was already on its way to a busy `reportQueue`. A stopped monitor never starts
///   again.
/// - A monitor that nobody references any more (started or not) is freed and its timer stops:
///   nothing the timer keeps may hold the monitor strongly.
/// - A DispatchSource is created suspended: resume it exactly once, and never release or cancel
///   one that was never resumed (libdispatch traps on both).
public final class StallMonitor: @unchecked Sendable {
    // TODO: the watched queue, the threshold, the interval, the report queue and callback,
    // a private queue for the timer, the timer, the outstanding ping, and what protects them.

    /// Pings `queue` every `interval`; a ping not answered within `threshold` starts a stall,
    /// reported once, when the queue answers, on `reportQueue`.
    public init(watching queue: DispatchQueue, threshold: DispatchTimeInterval,
                interval: DispatchTimeInterval, reportQueue: DispatchQueue,
                report: @escaping @Sendable (Stall) -> Void) {
        // TODO: keep the arguments. Do not create the timer here unless you resume it here too.
    }

    /// Starts the timer (a DispatchSourceTimer on a private queue). Calling it again does nothing.
    public func start() {
        // TODO
    }

    /// Stops the timer. After it returns, no report is delivered. Safe before start(), twice,
    /// concurrently, and from inside the report callback.
    public func stop() {
        // TODO
    }
}
