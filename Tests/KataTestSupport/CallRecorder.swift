import Dispatch
import Testing

/// Records every call of a completion handler, so a check can wait for the first call with a
/// deadline, prove that none came yet, and count them ("exactly once").
public final class CallRecorder<Argument>: @unchecked Sendable {
    private let log = Locked([Argument]())
    private let called = DispatchSemaphore(value: 0)

    public init() {}

    /// Call this from the completion handler under test.
    public func record(_ argument: Argument) {
        log.withLock { $0.append(argument) }
        called.signal()
    }

    /// Every call so far, in order.
    public var calls: [Argument] { log.current }

    /// The first call's argument, if any.
    public var first: Argument? { log.current.first }

    /// Waits for the first call; on a miss records "deadlock suspected in <place>" and returns false.
    @discardableResult
    public func waitForFirstCall(
        seconds: Double = Deadline.defaultSeconds, in place: String, waitingFor what: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        if !log.current.isEmpty { return true }
        return Deadline.wait(for: called, seconds: seconds, in: place, waitingFor: what, hint: hint, sourceLocation: sourceLocation)
    }

    /// True if a call came within `seconds`: how a check proves that nothing was called yet.
    public func wasCalled(within seconds: Double) -> Bool {
        if !log.current.isEmpty { return true }
        return called.wait(timeout: .now() + seconds) == .success
    }
}
