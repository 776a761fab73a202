import Dispatch

/// A dictionary that many threads can use at once.
///
/// Grader variant "StrongSelfClosure": the reference solution, except that the subscript's setter
/// goes through a closure kept in a property, set in `init`, that captures `self` strongly: a
/// cycle (dictionary → closure → dictionary), so a dictionary let go is never freed, nor are its
/// values. Every operation still works, from any number of threads: only the memory-safety
/// check's ending, which lets a dictionary go and watches it with weak references, sees it.
///
/// Reference solution, using the course's technique: a private concurrent queue. Reads run
/// with `sync` and may overlap each other; writes run with `sync(flags: .barrier)`, which waits
/// for the readers already inside and keeps everyone else out until it is done.
///
/// The queue must be a private concurrent queue: a barrier on a global queue is ignored.
/// Writes are `sync`, not `async`, so that a read that follows a write on the same thread sees it.
///
/// Do not call back into the dictionary from the closures passed to `withValue`, `mutate`,
/// `value(forKey:orInsert:)` or `read`: a write inside them waits for itself.
public final class ThreadSafeDictionary<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    private let queue = DispatchQueue(label: "ThreadSafeDictionary", attributes: .concurrent)
    private var storage: [Key: Value]
    /// Set once, in init, before anyone else can see the dictionary.
    private var store: (Key, Value?) -> Void = { _, _ in }

    public init(_ elements: [Key: Value] = [:]) {
        storage = elements
        store = { key, value in
            self.queue.sync(flags: .barrier) { self.storage[key] = value }
        }
    }

    /// The value for `key`; assigning nil removes the key.
    public subscript(key: Key) -> Value? {
        get { queue.sync { storage[key] } }
        set { store(key, newValue) }
    }

    /// Removes `key` and returns the value it had.
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        queue.sync(flags: .barrier) { storage.removeValue(forKey: key) }
    }

    public var count: Int { queue.sync { storage.count } }

    public var isEmpty: Bool { queue.sync { storage.isEmpty } }

    /// One consistent copy of the whole dictionary.
    public func snapshot() -> [Key: Value] { queue.sync { storage } }

    /// Atomic read-modify-write of one key: no other write interleaves.
    public func withValue<R>(forKey key: Key, _ body: (inout Value?) throws -> R) rethrows -> R {
        try queue.sync(flags: .barrier) { try body(&storage[key]) }
    }

    /// The value for `key`, inserting `make()` if absent; `make` runs at most once per key.
    public func value(forKey key: Key, orInsert make: () throws -> Value) rethrows -> Value {
        // A cheap shared look first; most calls find the key and never take the barrier.
        if let existing = queue.sync(execute: { storage[key] }) { return existing }
        return try queue.sync(flags: .barrier) {
            // Look again: another thread may have inserted it between the two blocks.
            if let existing = storage[key] { return existing }
            let made = try make()
            storage[key] = made
            return made
        }
    }

    /// Exclusive access to the whole dictionary: multi-key changes that no reader sees half done.
    public func mutate<R>(_ body: (inout [Key: Value]) throws -> R) rethrows -> R {
        try queue.sync(flags: .barrier) { try body(&storage) }
    }

    /// Shared access: several readers may be inside at once, never together with a writer.
    public func read<R>(_ body: ([Key: Value]) throws -> R) rethrows -> R {
        try queue.sync { try body(storage) }
    }
}
