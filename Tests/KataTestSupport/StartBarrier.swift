import Dispatch
import Foundation

/// A reusable barrier: `parties` threads call `arrive()`, and none returns until all have arrived.
///
/// Releasing threads together is how a check makes contention instead of hoping for it: on two
/// cores, work handed to a queue often runs one item after another and hides a race.
///
/// Waking from a condition variable is sequential (each waiter takes the lock in turn), so after
/// the release every thread briefly spins, yielding, until all parties are awake (at most about
/// a millisecond): the threads then leave `arrive()` within microseconds of each other.
public final class StartBarrier: @unchecked Sendable {
    public let parties: Int
    private let condition = NSCondition()
    private var waiting = 0
    private var generation = 0
    private var broken = false
    private let awake = Locked((generation: 0, count: 0))

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
        guard let released = waitForRelease(seconds: seconds) else { return false }
        alignWithOtherParties(generation: released)
        return true
    }

    /// Waits for the round to complete; returns the generation that was released, or nil.
    private func waitForRelease(seconds: Double) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        if broken { return nil }
        let myGeneration = generation
        waiting += 1
        if waiting == parties {
            waiting = 0
            generation += 1
            condition.broadcast()
            return generation
        }
        let end = Date(timeIntervalSinceNow: seconds)
        while generation == myGeneration && !broken {
            if !condition.wait(until: end) {
                broken = true
                condition.broadcast()
                return nil
            }
        }
        return generation != myGeneration ? generation : nil
    }

    private func alignWithOtherParties(generation: Int) {
        awake.withLock {
            if $0.generation != generation { $0 = (generation, 0) }
            $0.count += 1
        }
        let end = DispatchTime.now().uptimeNanoseconds + 1_000_000
        while DispatchTime.now().uptimeNanoseconds < end {
            let state = awake.current
            if state.generation != generation || state.count >= parties { return }
            sched_yield()
        }
    }

    /// How many rounds have completed: progress a check's deadline can watch
    /// (`ThreadGang.run(progress:)`), so that slow rounds on a loaded machine are not a deadlock.
    public var rounds: Int {
        condition.lock()
        defer { condition.unlock() }
        return generation
    }

    /// True once a round has timed out.
    public var isBroken: Bool {
        condition.lock()
        defer { condition.unlock() }
        return broken
    }
}
