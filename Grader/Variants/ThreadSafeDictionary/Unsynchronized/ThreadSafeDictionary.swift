/// A dictionary with no synchronization at all: `grader verify`'s "Unsynchronized" variant.
///
/// The reference solution with the queue taken out: right on one thread, and nothing else. It may
/// earn the single-thread points only (caps.json): every check of a concurrent property must catch
/// it, and "readers run together", which such code passes by accident, earns nothing without the
/// safety checks it presumes.
public final class ThreadSafeDictionary<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    private var storage: [Key: Value]

    public init(_ elements: [Key: Value] = [:]) {
        storage = elements
    }

    public subscript(key: Key) -> Value? {
        get { storage[key] }
        set { storage[key] = newValue }
    }

    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        storage.removeValue(forKey: key)
    }

    public var count: Int { storage.count }

    public var isEmpty: Bool { storage.isEmpty }

    public func snapshot() -> [Key: Value] { storage }

    public func withValue<R>(forKey key: Key, _ body: (inout Value?) throws -> R) rethrows -> R {
        try body(&storage[key])
    }

    public func value(forKey key: Key, orInsert make: () throws -> Value) rethrows -> Value {
        if let existing = storage[key] { return existing }
        let made = try make()
        storage[key] = made
        return made
    }

    public func mutate<R>(_ body: (inout [Key: Value]) throws -> R) rethrows -> R {
        try body(&storage)
    }

    public func read<R>(_ body: ([Key: Value]) throws -> R) rethrows -> R {
        try body(storage)
    }
}
