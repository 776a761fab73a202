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
/// so that some rounds put it in the window whatever the call's length.
///
/// On a busy machine the two threads often do not run at once: a thread waits for the other at a
/// round only for a moment (a few microseconds of spinning, never a sleep), then plays the round alone,
/// and a thread that fell behind jumps to the round the other is in. So the rounds go on at the
/// pace of whichever thread runs, and meet again whenever both run: no round waits for the
/// scheduler. A round may thus be played by one thread only, or skipped by one of them; the
/// caller counts the rounds that did overlap.
final class Lockstep: Sendable {
    /// The round each thread is in (-1 before the first).
    private let position0 = Atomic<Int>(-1)
    private let position1 = Atomic<Int>(-1)
    private let stopped = Atomic<Bool>(false)
    /// What the delays add to, one per thread (a loop that does nothing may be optimized away).
    private let sink0 = Atomic<Int>(0)
    private let sink1 = Atomic<Int>(0)

    /// The round `thread` is in.
    func position(of thread: Int) -> Int {
        thread == 0 ? position0.load(ordering: .acquiring) : position1.load(ordering: .acquiring)
    }

    /// Runs `round(thread, r)` on 2 dedicated threads for the rounds `r` in `0..<rounds` (each
    /// thread plays a round at most once; see above), until the rounds or the time (`end`) run
    /// out. Waits (see `Patience.waitUntil`, the rounds played being the progress) until both
    /// threads returned; false when it gave up (recorded): the threads then stop at their next
    /// round.
    static func run(
        rounds: Int, until end: DispatchTime, in place: String, waitingFor what: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ round: @escaping @Sendable (_ thread: Int, _ round: Int) -> Void
    ) -> Bool {
        let step = Lockstep()
        let returned = Atomic<Int>(0)
        for thread in 0..<2 {
            let worker = Thread {
                step.play(thread: thread, rounds: rounds, until: end, round)
                returned.add(1, ordering: .releasing)
            }
            worker.stackSize = 1 << 20
            worker.start()
        }
        let done = Patience.waitUntil(
            in: place, waitingFor: what, sourceLocation: sourceLocation,
            progress: { step.position(of: 0) + step.position(of: 1) + returned.load(ordering: .acquiring) },
            { returned.load(ordering: .acquiring) == 2 })
        if !done { step.stopped.store(true, ordering: .releasing) }
        return done
    }

    private func play(thread: Int, rounds: Int, until end: DispatchTime, _ round: (Int, Int) -> Void) {
        let partner = 1 - thread
        var r = 0
        while r < rounds, !stopped.load(ordering: .relaxed) {
            if r.isMultiple(of: 64), DispatchTime.now() > end { break }
            if thread == 0 { position0.store(r, ordering: .releasing) } else { position1.store(r, ordering: .releasing) }
            // Meet: spin (no yield, no sleep: either would wake microseconds late) until the
            // partner is at this round too, for a few microseconds at most (2,000 looks).
            var spins = 0
            while position(of: partner) < r, spins < 2_000 { spins += 1 }
            delay(thread: thread, round: r)
            round(thread, r)
            r = max(r + 1, position(of: partner))
        }
        // Past every round: a partner waiting for this thread stops waiting at once.
        if thread == 0 { position0.store(rounds, ordering: .releasing) } else { position1.store(rounds, ordering: .releasing) }
    }

    /// Rounds go in cycles of 64: in the first half thread 1 starts 0 to 31 steps after thread 0,
    /// in the second half thread 0 after thread 1. A step is two atomic adds, a few nanoseconds.
    private func delay(thread: Int, round r: Int) {
        let phase = r % 64
        let late = phase < 32 ? 1 : 0
        guard thread == late else { return }
        for _ in 0..<(phase % 32) * 2 {
            if thread == 0 { sink0.add(1, ordering: .relaxed) } else { sink1.add(1, ordering: .relaxed) }
        }
    }
}
