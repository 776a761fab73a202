import Dispatch
import Foundation

/// A right answer in another style: the initializer runs inside `sync` on the box's own serial
/// queue (as dispatch_once holds its caller); re-entry is seen through a queue-specific key.
public final class Lazy<Value: Sendable>: @unchecked Sendable {
    private let initializer: @Sendable () throws -> Value
    private let queue = DispatchQueue(label: "kata.lazy")
    private let key = DispatchSpecificKey<Bool>()
    private var stored: Value?

    public init(_ initializer: @escaping @Sendable () throws -> Value) {
        self.initializer = initializer
        queue.setSpecific(key: key, value: true)
    }

    public var value: Value {
        get throws {
            precondition(DispatchQueue.getSpecific(key: key) == nil, "Lazy: the initializer read its own box (re-entrant use)")
            return try queue.sync {
                if let stored { return stored }
                let value = try initializer()
                stored = value
                return value
            }
        }
    }
}
