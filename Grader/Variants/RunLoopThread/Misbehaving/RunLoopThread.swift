import CoreFoundation
import Foundation
import KataTripwire

// The untouched stub, with `Tripwire.call()` first in every public entry point: `grader verify`
// runs it with each KATA_MISBEHAVE misbehaviour and asserts 0 points.

/// A thread of its own with a running run loop: the stub.
public final class RunLoopThread: @unchecked Sendable {
    public init() {
        Tripwire.call()
    }

    public func start() {
        Tripwire.call()
    }

    @discardableResult
    public func perform(_ block: @escaping @Sendable () -> Void) -> Bool {
        Tripwire.call()
        return false
    }

    @discardableResult
    public func schedule(after delay: TimeInterval, repeating interval: TimeInterval? = nil,
                         modes: [RunLoop.Mode] = [.default], _ block: @escaping @Sendable () -> Void) -> Bool {
        Tripwire.call()
        return false
    }

    public func stop() {
        Tripwire.call()
    }
}
