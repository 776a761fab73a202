import Foundation
import KataTripwire

/// The same gate for `Operation`s: the stub, with `Tripwire.call()` first in every entry point.
public final class OperationGate: @unchecked Sendable {
    public init() {
        Tripwire.call()
    }

    public func addOperation(_ operation: Operation) {
        Tripwire.call()
    }

    public func open(granted: Bool) {
        Tripwire.call()
    }

    public func pause() {
        Tripwire.call()
    }

    public func resume() {
        Tripwire.call()
    }
}
