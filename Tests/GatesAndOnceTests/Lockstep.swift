import Dispatch
import Foundation
import KataTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Two threads that meet before every round and start it together, within a fraction of a
/// microsecond, one of them a little later than the other by a delay that sweeps back and forth
/// from round to round.
///
/// Why: a check-then-act inside one call (`open()` reading "undecided" in one locked section and
/// deciding in the next, or counting its callers and reading the count again after unlocking) is
/// a window of a few instructions. Threads released from a condition variable start microseconds
/// apart, far more than the call lasts, so they almost never meet in it. Meeting on an atomic
/// (both spinning, neither asleep) aligns them to the time a cache line takes between the cores,
/// and the sweep moves one thread's start across the other's call in steps of a few nanoseconds,
/// so that some rounds put it in the window whatever the call's length. No clock decides: on a
/// busy machine a round merely waits until both threads run.
final class Lockstep: Sendable {
    private let arrived = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    /// Rounds both threads have finished: the progress a wait can watch.
    private let finished = Atomic<Int>(0)
    /// What the delays add to, one per thread (a loop that does nothing may be optimized away).
    private let sink0 = Atomic<Int>(0)
    private let sink1 = Atomic<Int>(0)

    var rounds: Int { finished.load(ordering: .acquiring) }

    /// Asks the threads to stop at their next meeting (a partner stuck in the code under test
    /// must not keep the other spinning forever).
    func stop() { stopped.store(true, ordering: .releasing) }

    /// Runs `round(thread, r)` on 2 dedicated threads for `r` in `0..<rounds`, both starting each
    /// round together. Waits (see `Patience.waitUntil`) until both returned; false when it gave
    /// up (recorded), and the threads then stop at their next meeting.
    static func run(
        rounds: Int, in place: String, waitingFor what: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ round: @escaping @Sendable (_ thread: Int, _ round: Int) -> Void
    ) -> Bool {
        let step = Lockstep()
        let returned = Atomic<Int>(0)
        for thread in 0..<2 {
            let worker = Thread {
                for r in 0..<rounds {
                    guard step.meet(round: r) else { break }
                    step.delay(thread: thread, round: r)
                    round(thread, r)
                    if thread == 0 { step.finished.add(1, ordering: .releasing) }
                }
                returned.add(1, ordering: .releasing)
            }
            worker.stackSize = 1 << 20
            worker.start()
        }
        let done = Patience.waitUntil(
            in: place, waitingFor: what, sourceLocation: sourceLocation,
            progress: { step.rounds + returned.load(ordering: .acquiring) },
            { returned.load(ordering: .acquiring) == 2 })
        if !done { step.stop() }
        return done
    }

    /// Both threads arrive; each spins until the other did. Spinning first: a thread that sleeps
    /// wakes microseconds late. Then yielding, so that on a busy core the partner gets to run.
    private func meet(round r: Int) -> Bool {
        arrived.add(1, ordering: .acquiringAndReleasing)
        let target = 2 * (r + 1)
        var spins = 0
        while arrived.load(ordering: .acquiring) < target {
            if stopped.load(ordering: .relaxed) { return false }
            spins += 1
            if spins > 2_000 { sched_yield() }
        }
        return !stopped.load(ordering: .relaxed)
    }

    /// Rounds go in cycles of 64: in the first half thread 1 starts 0 to 31 steps after thread 0,
    /// in the second half thread 0 after thread 1. A step is one atomic add, a few nanoseconds.
    private func delay(thread: Int, round r: Int) {
        let phase = r % 64
        let late = phase < 32 ? 1 : 0
        guard thread == late else { return }
        for _ in 0..<(phase % 32) * 2 {
            if thread == 0 { sink0.add(1, ordering: .relaxed) } else { sink1.add(1, ordering: .relaxed) }
        }
    }
}
