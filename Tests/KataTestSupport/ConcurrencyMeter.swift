import Foundation

/// Counts how many threads are inside a region at once and remembers the peak.
///
/// "At most N at once" is a counter with a recorded peak, not a stopwatch.
public final class ConcurrencyMeter: @unchecked Sendable {
    private let lock = NSLock()
    private var inside = 0
    private var highest = 0
    private var entries = 0

    public init() {}

    /// Call on entering the region; returns how many are inside now, this one included.
    @discardableResult
    public func enter() -> Int {
        lock.lock()
        defer { lock.unlock() }
        inside += 1
        entries += 1
        highest = max(highest, inside)
        return inside
    }

    /// Call on leaving the region.
    public func leave() {
        lock.lock()
        defer { lock.unlock() }
        inside -= 1
    }

    /// Runs `body` inside the region.
    @discardableResult
    public func measure<R>(_ body: () throws -> R) rethrows -> R {
        enter()
        defer { leave() }
        return try body()
    }

    /// The most that were inside at once.
    public var peak: Int { lock.lock(); defer { lock.unlock() }; return highest }
    /// How many are inside now.
    public var current: Int { lock.lock(); defer { lock.unlock() }; return inside }
    /// How many times the region was entered.
    public var totalEntries: Int { lock.lock(); defer { lock.unlock() }; return entries }
}
