import Synchronization

/// A dictionary that many threads can use at once.
///
/// Model-mode right implementation in another style ("MutexStyle"): the storage lives inside a
/// `Mutex` from the Synchronization module and is reached only through `withLock`.
public final class ThreadSafeDictionary<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let storage: Mutex<[Key: Value]>

    public init(_ elements: [Key: Value] = [:]) {
        storage = Mutex(elements)
    }

    public subscript(key: Key) -> Value? {
        get { storage.withLock { $0[key] } }
        set { storage.withLock { $0[key] = newValue } }
    }

    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        storage.withLock { $0.removeValue(forKey: key) }
    }

    public var count: Int { storage.withLock { $0.count } }

    public var isEmpty: Bool { storage.withLock { $0.isEmpty } }

    public func snapshot() -> [Key: Value] { storage.withLock { $0 } }

    public func withValue<R>(forKey key: Key, _ body: (inout Value?) throws -> R) rethrows -> R {
        try storage.withLock { try body(&$0[key]) }
    }

    public func value(forKey key: Key, orInsert make: () throws -> Value) rethrows -> Value {
        try storage.withLock { storage in
            if let existing = storage[key] { return existing }
            let made = try make()
            storage[key] = made
            return made
        }
    }

    public func mutate<R>(_ body: (inout [Key: Value]) throws -> R) rethrows -> R {
        try storage.withLock { try body(&$0) }
    }

    public func read<R>(_ body: ([Key: Value]) throws -> R) rethrows -> R {
        try storage.withLock { try body($0) }
    }
}
