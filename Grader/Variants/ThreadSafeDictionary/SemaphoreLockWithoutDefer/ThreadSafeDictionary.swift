import Dispatch

/// A dictionary that many threads can use at once.
///
/// Grader variant "SemaphoreLockWithoutDefer": a reader-writer lock made of `DispatchSemaphore`s
/// (the no-starve readers-writers pattern: a turnstile, a room that the writer or the readers as
/// a group hold, a counted light switch), right in every way but one: a write takes the
/// semaphores and gives them back without `defer`. When a write's body throws, they stay below
/// the value they were created with: every later call waits forever, and libdispatch traps when
/// such a semaphore is freed ("Semaphore object deallocated while in use", `_dispatch_semaphore_dispose`
/// in swift-corelibs-libdispatch `src/semaphore.c`). The memory-safety check's ending calls
/// `count` after a write whose body threw, and sees it wait.
public final class ThreadSafeDictionary<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    private var storage: [Key: Value]
    /// Taken by a writer on its way in, passed through by readers: a waiting writer stops new readers.
    private let turnstile = DispatchSemaphore(value: 1)
    /// Held by the writer inside, or by the readers inside as a group.
    private let roomEmpty = DispatchSemaphore(value: 1)
    /// Protects `readers`.
    private let readersMutex = DispatchSemaphore(value: 1)
    private var readers = 0

    public init(_ elements: [Key: Value] = [:]) {
        storage = elements
    }

    private func shared<R>(_ body: () throws -> R) rethrows -> R {
        turnstile.wait()
        turnstile.signal()
        readersMutex.wait()
        readers += 1
        if readers == 1 { roomEmpty.wait() }
        readersMutex.signal()
        defer {
            readersMutex.wait()
            readers -= 1
            if readers == 0 { roomEmpty.signal() }
            readersMutex.signal()
        }
        return try body()
    }

    private func exclusive<R>(_ body: () throws -> R) rethrows -> R {
        turnstile.wait()
        roomEmpty.wait()
        // The bug: no defer. A body that throws leaves both semaphores taken.
        let result = try body()
        turnstile.signal()
        roomEmpty.signal()
        return result
    }

    /// The value for `key`; assigning nil removes the key.
    public subscript(key: Key) -> Value? {
        get { shared { storage[key] } }
        set { exclusive { storage[key] = newValue } }
    }

    /// Removes `key` and returns the value it had.
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        exclusive { storage.removeValue(forKey: key) }
    }

    public var count: Int { shared { storage.count } }

    public var isEmpty: Bool { shared { storage.isEmpty } }

    /// One consistent copy of the whole dictionary.
    public func snapshot() -> [Key: Value] { shared { storage } }

    /// Atomic read-modify-write of one key: no other write interleaves.
    public func withValue<R>(forKey key: Key, _ body: (inout Value?) throws -> R) rethrows -> R {
        try exclusive { try body(&storage[key]) }
    }

    /// The value for `key`, inserting `make()` if absent; `make` runs at most once per key.
    public func value(forKey key: Key, orInsert make: () throws -> Value) rethrows -> Value {
        if let existing = shared({ storage[key] }) { return existing }
        return try exclusive {
            if let existing = storage[key] { return existing }
            let made = try make()
            storage[key] = made
            return made
        }
    }

    /// Exclusive access to the whole dictionary: multi-key changes that no reader sees half done.
    public func mutate<R>(_ body: (inout [Key: Value]) throws -> R) rethrows -> R {
        try exclusive { try body(&storage) }
    }

    /// Shared access: several readers may be inside at once, never together with a writer.
    public func read<R>(_ body: ([Key: Value]) throws -> R) rethrows -> R {
        try shared { try body(storage) }
    }
}
