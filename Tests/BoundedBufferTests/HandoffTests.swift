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

    @Test("Ping-pong through two buffers of capacity 1: 2,000 hand-offs per pair never stall")
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
        let finished = ThreadGang.run(pairs * 2, seconds: seconds, in: place) { index in
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
    }
}
