import Dispatch
import Foundation
import KataTripwire

// The untouched stub, with `Tripwire.call()` first in every public entry point: `grader verify`
// runs it with each KATA_MISBEHAVE misbehaviour and asserts 0 points.

/// One stall: how long the watched queue did not answer, measured when it answered again.
public struct Stall: Sendable, Equatable {
    private let storedDuration: Double

    /// Seconds from the moment the unanswered ping was sent to the moment the queue ran it.
    public var duration: Double {
        Tripwire.call()
        return storedDuration
    }

    public init(duration: Double) {
        Tripwire.call()
        self.storedDuration = duration
    }
}

/// A ping watchdog for one queue (the main thread, in an app): the stub.
public final class StallMonitor: @unchecked Sendable {
    public init(watching queue: DispatchQueue, threshold: DispatchTimeInterval,
                interval: DispatchTimeInterval, reportQueue: DispatchQueue,
                report: @escaping @Sendable (Stall) -> Void) {
        Tripwire.call()
    }

    public func start() {
        Tripwire.call()
    }

    public func stop() {
        Tripwire.call()
    }
}
