import Foundation

/// A reusable barrier: `parties` threads call `arrive()`, and none returns until all have arrived.
///
/// Releasing threads together is how a check makes contention instead of hoping for it: on two
/// cores, work handed to a queue often runs one item after another and hides a race.
public final class StartBarrier: @unchecked Sendable {
    public let parties: Int
    private let condition = NSCondition()
    private var waiting = 0
    private var generation = 0
    private var broken = false

    public init(parties: Int) {
        precondition(parties > 0, "a barrier needs at least one party")
        self.parties = parties
    }

    /// Blocks until every party has arrived, then releases them all; the barrier is then ready
    /// for the next round. Returns false if the round did not complete within `seconds`; the
    /// barrier is then broken and every later call returns false at once, so no thread is left
    /// waiting for a partner that is stuck in the code under test.
    @discardableResult
    public func arrive(seconds: Double = Deadline.defaultSeconds) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if broken { return false }
        let myGeneration = generation
        waiting += 1
        if waiting == parties {
            waiting = 0
            generation += 1
            condition.broadcast()
            return true
        }
        let end = Date(timeIntervalSinceNow: seconds)
        while generation == myGeneration && !broken {
            if !condition.wait(until: end) {
                broken = true
                condition.broadcast()
                return false
            }
        }
        return generation != myGeneration
    }

    /// True once a round has timed out.
    public var isBroken: Bool {
        condition.lock()
        defer { condition.unlock() }
        return broken
    }
}
