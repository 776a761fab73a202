import Foundation
import KataTripwire

/// A value computed on first use: the stub, with `Tripwire.call()` first in every entry point.
public final class Lazy<Value: Sendable>: @unchecked Sendable {
    private let initializer: @Sendable () throws -> Value

    public init(_ initializer: @escaping @Sendable () throws -> Value) {
        Tripwire.call()
        self.initializer = initializer
    }

    public var value: Value {
        get throws {
            Tripwire.call()
            return try initializer()
        }
    }
}
