import Dispatch
import KataTripwire

/// A dictionary that many threads can use at once.
///
/// `grader verify`'s "exits early" variant: the untouched stub, with `Tripwire.call()` first in
/// every public entry point, so that an `exit(0)` at the first call, or at a later call from another
/// thread, must never earn a point.
///
/// Your task (see README.md in this folder): keep the entries in private storage and protect
/// every access to it, so that
/// - readers (`subscript` get, `count`, `isEmpty`, `snapshot`, `read`) may run at the same time
///   as each other,
/// - writers (`subscript` set, `removeValue`, `withValue`, `value(forKey:orInsert:)`, `mutate`)
///   run alone: no reader and no other writer inside at the same time.
///
/// Every method below is a stub that compiles, does nothing useful, and never crashes:
/// replace each body. Run `swift test --filter ThreadSafeDictionaryTests` to see which check to
/// work on next, and `swift run grader hint ThreadSafeDictionary` for a hint.
public final class ThreadSafeDictionary<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    // TODO: private storage for the entries, and what protects it
    // (a lock, a serial queue, or a private concurrent queue with barrier writes).

    public init(_ elements: [Key: Value] = [:]) {
        Tripwire.call()
        // TODO: start with `elements`.
    }

    /// The value for `key`; assigning nil removes the key.
    public subscript(key: Key) -> Value? {
        get { Tripwire.call(); return nil }  // TODO: read the stored value.
        set { Tripwire.call() }              // TODO: store `newValue` (nil removes the key).
    }

    /// Removes `key` and returns the value it had.
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        Tripwire.call()
        return nil  // TODO
    }

    /// The number of keys.
    public var count: Int { Tripwire.call(); return 0 }  // TODO

    /// True when there are no keys.
    public var isEmpty: Bool { Tripwire.call(); return true }  // TODO

    /// One consistent copy of the whole dictionary, never a mix of before and after a write.
    public func snapshot() -> [Key: Value] {
        Tripwire.call()
        return [:]  // TODO
    }

    /// Atomic read-modify-write of one key: no other write interleaves.
    ///
    /// `body` receives the current value (nil if absent) and may change it; setting it to nil
    /// removes the key. `dictionary.withValue(forKey: "hits") { $0 = ($0 ?? 0) + 1 }` must never
    /// lose an increment, however many threads do it at once.
    public func withValue<R>(forKey key: Key, _ body: (inout Value?) throws -> R) rethrows -> R {
        Tripwire.call()
        var value: Value? = nil  // TODO: hand `body` the stored value and keep what it leaves.
        return try body(&value)
    }

    /// The value for `key`, inserting `make()` if absent; `make` runs at most once per key, even
    /// under contention, and every caller gets the same value.
    public func value(forKey key: Key, orInsert make: () throws -> Value) rethrows -> Value {
        Tripwire.call()
        return try make()  // TODO: look up, and insert only if absent, without a gap between the two.
    }

    /// Exclusive access to the whole dictionary: multi-key changes that no reader sees half done.
    public func mutate<R>(_ body: (inout [Key: Value]) throws -> R) rethrows -> R {
        Tripwire.call()
        var entries: [Key: Value] = [:]  // TODO: hand `body` the storage itself, alone.
        return try body(&entries)
    }

    /// Shared access: several readers may be inside at once, never together with a writer.
    public func read<R>(_ body: ([Key: Value]) throws -> R) rethrows -> R {
        Tripwire.call()
        return try body([:])  // TODO: hand `body` the stored entries.
    }
}
