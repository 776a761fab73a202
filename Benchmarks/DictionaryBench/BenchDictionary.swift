import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the dictionary benchmark needs of a thread-safe dictionary: one read, one write.
public protocol BenchDictionary: AnyObject, Sendable {
    func value(for key: Int) -> Int?
    func set(_ value: Int, for key: Int)
}

/// One `NSLock` around everything: the baseline every other result is a ratio of.
public final class LockDictionary: BenchDictionary, @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Int: Int] = [:]
    public init() {}
    public func value(for key: Int) -> Int? { lock.lock(); defer { lock.unlock() }; return storage[key] }
    public func set(_ value: Int, for key: Int) { lock.lock(); storage[key] = value; lock.unlock() }
}

/// A serial queue with `sync` for reads and writes: the same exclusion as a lock, through GCD.
public final class SerialQueueDictionary: BenchDictionary, @unchecked Sendable {
    private let queue = DispatchQueue(label: "bench.serial")
    private var storage: [Int: Int] = [:]
    public init() {}
    public func value(for key: Int) -> Int? { queue.sync { storage[key] } }
    public func set(_ value: Int, for key: Int) { queue.sync { storage[key] = value } }
}

/// A `pthread_rwlock_t`: readers share, a writer is alone; the barrier idea without a queue.
public final class ReadWriteLockDictionary: BenchDictionary, @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
    private var storage: [Int: Int] = [:]
    public init() { pthread_rwlock_init(lock, nil) }
    deinit { pthread_rwlock_destroy(lock); lock.deallocate() }
    public func value(for key: Int) -> Int? { pthread_rwlock_rdlock(lock); defer { pthread_rwlock_unlock(lock) }; return storage[key] }
    public func set(_ value: Int, for key: Int) { pthread_rwlock_wrlock(lock); storage[key] = value; pthread_rwlock_unlock(lock) }
}

/// The course's reference technique: a private concurrent queue, `sync` reads, barrier writes.
public final class BarrierQueueDictionary: BenchDictionary, @unchecked Sendable {
    private let queue = DispatchQueue(label: "bench.barrier", attributes: .concurrent)
    private var storage: [Int: Int] = [:]
    public init() {}
    public func value(for key: Int) -> Int? { queue.sync { storage[key] } }
    public func set(_ value: Int, for key: Int) { queue.sync(flags: .barrier) { storage[key] = value } }
}

/// A plain Dictionary with no protection at all: only ever used from one thread, as the floor
/// that shows what any protection costs.
public final class PlainDictionary: BenchDictionary, @unchecked Sendable {
    private var storage: [Int: Int] = [:]
    public init() {}
    public func value(for key: Int) -> Int? { storage[key] }
    public func set(_ value: Int, for key: Int) { storage[key] = value }
}
