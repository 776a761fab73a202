import Foundation

/// Check, then initialize and store, with no lock (what `lazy var` does), and no re-entry check.
public final class Lazy<Value: Sendable>: @unchecked Sendable {
    private let initializer: @Sendable () throws -> Value
    private var stored: Value?

    public init(_ initializer: @escaping @Sendable () throws -> Value) {
        self.initializer = initializer
    }

    public var value: Value {
        get throws {
            if let stored { return stored }
            let value = try initializer()
            stored = value
            return value
        }
    }
}
