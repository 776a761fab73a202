import BoundedBuffer
import Foundation
import KataTestSupport
import Testing

/// One producer and one consumer handing elements back and forth: every put has exactly one
/// thread waiting for it, and nothing else will ever wake that thread. A wake-up lost in the gap
/// between checking the buffer and starting to wait (the check made outside the lock) stalls both
/// for ever. Runs isolated.
@Suite("Hand-offs", .exitIsAFailure)
struct HandoffTests {
    static let pairs = 3
    static let rounds = 2_000
    static let seconds = 6.0
    static let place = "ping-pong through two buffers of capacity 1"

    @Test("Ping-pong through two buffers of capacity 1: 2,000 hand-offs per pair never stall; then a consumer stopped by a signal inside take() while a producer puts still gets the element at once")
    func handoffsNeverStall() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: HandoffTests.seconds + 4, in: HandoffTests.place)
            HandoffTests.pingPong()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: Self.place,
            crashHint: "A crash here usually means take removed from an empty array: check again after waking, under the lock.")
    }

    static func pingPong() {
        let buffers = (0..<pairs).map { _ in (there: BoundedBuffer<Int>(capacity: 1), back: BoundedBuffer<Int>(capacity: 1)) }
        let progress = Locked([Int](repeating: 0, count: pairs))
        let problems = Locked([String]())
        let finished = ThreadGang.run(pairs * 2, seconds: seconds, in: place, progress: { progress.current.reduce(0, +) }) { index in
            let pair = index / 2
            let (there, back) = buffers[pair]
            if index % 2 == 0 {
                for round in 0..<rounds {
                    guard there.putOutcome(round) == .returned(Stored()) else {
                        problems.withLock { $0.append("put(\(round)) on an empty, open buffer did not return normally") }
                        return
                    }
                    let answer = back.takeOutcome()
                    guard answer == .returned(round) else {
                        problems.withLock { $0.append("the answer to \(round) was: \(answer)") }
                        return
                    }
                    progress.withLock { $0[pair] = round + 1 }
                }
            } else {
                for _ in 0..<rounds {
                    let ball = there.takeOutcome()
                    guard case .returned(let value) = ball, back.putOutcome(value) == .returned(Stored()) else {
                        problems.withLock { $0.append("a take on the way there gave: \(ball)") }
                        return
                    }
                }
            }
        }
        guard finished else {
            Issue.record("The hand-offs stalled after \(progress.current) of \(rounds) rounds per pair: each thread sat waiting for the other. A put woke nobody because the consumer had checked the buffer, let go of the lock, and only then started to wait: the lost wake-up. Check and wait under the same lock, without releasing it in between (condition.wait() releases it for you).")
            for (there, back) in buffers { there.close(); back.close() }
            return
        }
        let seen = problems.current
        guard seen.isEmpty else {
            Issue.record("Ping-pong went wrong: \(seen.prefix(2).joined(separator: "; ")). Each element put should be taken by the thread waiting for it.")
            return
        }
        #expect(progress.current == [Int](repeating: rounds, count: pairs), "Each pair should finish \(rounds) rounds; they finished \(progress.current).")
        guard progress.current == [Int](repeating: rounds, count: pairs) else { return }
        interruptedHandoffs()
    }

    /// Then a consumer taking from fresh empty buffers, stopped by a signal (see `Interrupter`)
    /// wherever its `take` has got to while another thread puts the element it waits for. A
    /// consumer that looks at the buffer, lets go of the lock and takes it again to wait, stopped
    /// in that gap, misses the put's wake-up and sleeps until its timeout although the element is
    /// there. The consumer starts each take a little later than the last (a sweep over 30 µs), so
    /// that the signal, which arrives a fixed few microseconds after it is sent, meets every part
    /// of the take in turn.
    static func interruptedHandoffs() {
        let trials = 3_000, timeout = 0.5
        let end = DispatchTime.now() + 2
        for _ in 0..<10 where DispatchTime.now() < end {
            guard let problem = interruptedRound(trials: trials, timeout: timeout) else { continue }
            if !problem.isEmpty {
                Issue.record("A consumer stopped for a moment inside take() (by a signal) while a producer put the element it was waiting for: \(problem). The put's wake-up was lost: the take looked at the buffer, let go of the lock, and only then started to wait. Check and wait under the same lock, without releasing it in between (condition.wait() releases it for you).")
            }
            return
        }
    }

    /// One round of `trials` fresh buffers: nil when every take got its element at once, else
    /// the first late take (or "" when the round could not finish, a deadlock already recorded).
    static func interruptedRound(trials: Int, timeout: Double) -> String? {
        let buffers = (0..<trials).map { _ in BoundedBuffer<Int>(capacity: 1) }
        let putAt = Locked([Int: Double]())
        let late = Locked([String]())
        let run = Interrupter.run(
            count: trials, interruptions: trials, seconds: 1.5, in: interruptedPlace,
            victim: { number in
                guard late.current.isEmpty else { return }
                spin(microseconds: UInt64(number * 37 % 30_000) / 1_000)
                let start = monotonicSeconds()
                let outcome = buffers[number].takeOutcome(timeout: timeout)
                let took = monotonicSeconds() - start
                guard took > timeout * 0.8, let put = putAt.current[number], put - start < timeout * 0.2 else { return }
                late.withLock { $0.append("take() waited \(Int(took * 1000)) ms and \(outcome), although the element was put \(Int((put - start) * 1000)) ms after the take began") }
            },
            intruder: { number in
                putAt.withLock { $0[number] = monotonicSeconds() }
                _ = buffers[number].putOutcome(number, timeout: 0)
            })
        guard run != nil else { return "" }
        return late.current.first
    }

    static let interruptedPlace = "a consumer stopped inside take() while a producer puts"
}
