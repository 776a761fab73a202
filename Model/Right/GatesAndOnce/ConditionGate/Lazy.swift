import Foundation

/// Model-mode right implementation in another style (the course's hints followed literally, as
/// `Tests/GatesAndOnceTests/MAINTAINERS.md` records them): one `NSRecursiveLock` held across the
/// check, the initialization and the store, and the re-entry precondition right after `lock()`.
/// A second reader waits on the lock while the first initializes.
public final class Lazy<Value: Sendable>: @unchecked Sendable {
    private let initializer: @Sendable () throws -> Value
    private let lock = NSRecursiveLock()
    private var stored: Value?
    private var initializing = false

    public init(_ initializer: @escaping @Sendable () throws -> Value) {
        self.initializer = initializer
    }

    public var value: Value {
        get throws {
            lock.lock()
            defer { lock.unlock() }
            precondition(!initializing, "Lazy: the initializer asked for the value it is computing (re-entrant use).")
            if let stored { return stored }
            initializing = true
            defer { initializing = false }
            let value = try initializer()
            stored = value
            return value
        }
    }
}
