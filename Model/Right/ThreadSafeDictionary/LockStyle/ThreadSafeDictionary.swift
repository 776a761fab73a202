import Foundation

/// A dictionary that many threads can use at once.
///
/// Model-mode right implementation in another style ("LockStyle"): one `NSLock` around every
/// access, reads included. Reads do not overlap, which is slower, not wrong.
public final class ThreadSafeDictionary<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Key: Value]

    public init(_ elements: [Key: Value] = [:]) {
        storage = elements
    }

    public subscript(key: Key) -> Value? {
        get { lock.withLock { storage[key] } }
        set { lock.withLock { storage[key] = newValue } }
    }

    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        lock.withLock { storage.removeValue(forKey: key) }
    }

    public var count: Int { lock.withLock { storage.count } }

    public var isEmpty: Bool { lock.withLock { storage.isEmpty } }

    public func snapshot() -> [Key: Value] { lock.withLock { storage } }

    public func withValue<R>(forKey key: Key, _ body: (inout Value?) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&storage[key])
    }

    public func value(forKey key: Key, orInsert make: () throws -> Value) rethrows -> Value {
        lock.lock()
        defer { lock.unlock() }
        if let existing = storage[key] { return existing }
        let made = try make()
        storage[key] = made
        return made
    }

    public func mutate<R>(_ body: (inout [Key: Value]) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&storage)
    }

    public func read<R>(_ body: ([Key: Value]) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(storage)
    }
}
