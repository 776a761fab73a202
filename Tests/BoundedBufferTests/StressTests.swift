import BoundedBuffer
import Foundation
import KataTestSupport
import Testing

/// Many producers and consumers through a small buffer: every wake-up is contested, so a consumer
/// that does not check again after waking finds its element gone (an `if` around `wait()` crashes
/// on an empty array), and a check made outside the lock misses wake-ups. Then through a large
/// one, where nobody waits and every put and take meet head on: storage changed without the lock
/// is corrupted there even when the small buffer's waiting kept the threads apart. Runs isolated.
@Suite("Producers and consumers", .exitIsAFailure)
struct StressTests {
    static let producers = 4
    static let consumers = 4
    static let perProducer = 5_000
    /// A small buffer, where threads wait, then a large one, where they do not.
    static let capacities = [3, 64]
    /// Per buffer.
    static let seconds = 5.0
    static let place = "4 producers and 4 consumers through a buffer of capacity 3, then of 64"

    @Test("4 producers and 4 consumers: every element arrives exactly once, in each producer's order, never more than capacity inside")
    func manyProducersAndConsumers() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(quiet: StressTests.seconds + 4, limit: 60, in: StressTests.place,
                                progress: { StressTests.elementsTaken.current })
            StressTests.producersAndConsumersThroughEachBuffer()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: Self.place,
            crashHint: "A crash here usually means a take woke up, found the element already taken by another consumer, and removed from an empty array: wait in a loop, while the buffer is empty { condition.wait() }, never with if. Check and change the storage only while holding the lock.")
    }

    static func element(producer: Int, sequence: Int) -> Int { producer * 1_000_000 + sequence }

    /// Stops at the first buffer that went wrong: its messages are the ones worth reading.
    static func producersAndConsumersThroughEachBuffer() {
        for capacity in capacities {
            let before = issuesRecorded.current
            producersAndConsumers(capacity: capacity)
            if issuesRecorded.current != before { return }
        }
    }

    /// Elements taken from every buffer, counted in batches (a lock per take would change the
    /// contention): both deadlines watch it, so that slow on a loaded machine is not a deadlock.
    static let elementsTaken = Locked(0)

    /// Issues this process recorded (the checks below count theirs, to stop after a failing buffer).
    static let issuesRecorded = Locked(0)

    static func producersAndConsumers(capacity: Int) {
        let place = "4 producers and 4 consumers through a buffer of capacity \(capacity)"
        func record(_ comment: String) {
            issuesRecorded.withLock { $0 += 1 }
            Issue.record(Comment(rawValue: comment))
        }
        let buffer = BoundedBuffer<Int>(capacity: capacity)
        guard buffer.capacity == capacity else {
            record("capacity should be \(capacity) for BoundedBuffer(capacity: \(capacity)), got \(buffer.capacity): keep it in init.")
            return
        }
        let received = Locked([[Int]](repeating: [], count: consumers))
        let wrongOutcomes = Locked([String]())
        let producersLeft = Locked(producers)
        let running = Locked(true)
        let highestCount = Locked(0)
        let taken = elementsTaken

        // Where the test can see the count: a thread that reads it as often as it can.
        let sampler = ThreadGang.spawn {
            while running.current {
                let count = buffer.count
                highestCount.withLock { $0 = max($0, count) }
                sched_yield()
            }
        }

        let finished = ThreadGang.run(producers + consumers, seconds: seconds, in: place, progress: { taken.current }) { index in
            if index < producers {
                for sequence in 0..<perProducer {
                    let outcome = buffer.putOutcome(element(producer: index, sequence: sequence))
                    if outcome != .returned(Stored()) {
                        wrongOutcomes.withLock { $0.append("put() on an open buffer \(outcome)") }
                        break
                    }
                }
                // The last producer to finish closes the buffer: the consumers then drain it and stop.
                if producersLeft.withLock({ $0 -= 1; return $0 }) == 0 { buffer.close() }
            } else {
                var mine: [Int] = []
                mine.reserveCapacity(producers * perProducer)
                loop: while true {
                    switch buffer.takeOutcome() {
                    case .returned(let value):
                        mine.append(value)
                        if mine.count % 256 == 0 { taken.withLock { $0 += 256 } }
                    case .threw(.closed): break loop
                    case let other:
                        wrongOutcomes.withLock { $0.append("take() on an open buffer \(other)") }
                        break loop
                    }
                }
                received.withLock { $0[index - producers] = mine }
            }
        }
        running.withLock { $0 = false }
        _ = sampler.wait(timeout: .now() + 1)
        guard finished else {
            record("Some producers or consumers never returned, and the work stopped moving for \(Int(seconds)) s (capacity \(capacity)). The usual cause: a thread slept through the wake-up meant for it. Check the condition and wait while holding the lock (a check made before lock() misses a put that happens in between: the lost wake-up), wake waiters on every change, and let close() wake every one of them (broadcast).")
            buffer.close()
            return
        }

        let wrong = wrongOutcomes.current
        if !wrong.isEmpty { record("\(wrong.count) calls failed that should have succeeded, e.g. \(wrong.first ?? ""): put and take without timeout on an open buffer only return normally.") }

        let lists = received.current
        let all = lists.flatMap { $0 }
        let total = producers * perProducer
        var seen = Set<Int>()
        var duplicates = 0
        for value in all where !seen.insert(value).inserted { duplicates += 1 }
        let missing = total - seen.count
        if !(duplicates == 0 && missing == 0 && all.count == total) { record(
            "\(total) elements were put into a buffer of capacity \(capacity); the consumers took \(all.count), with \(duplicates) duplicates and \(missing) missing. Every element must arrive exactly once: check and change the storage only while holding the lock.") }

        var outOfOrder = 0
        for list in lists {
            var last = [Int](repeating: -1, count: producers)
            for value in list {
                let producer = value / 1_000_000
                let sequence = value % 1_000_000
                guard (0..<producers).contains(producer) else { continue }
                if sequence <= last[producer] { outOfOrder += 1 }
                last[producer] = sequence
            }
        }
        if outOfOrder != 0 { record(
            "\(outOfOrder) times a consumer received a producer's element after a later one of the same producer. The buffer is first in, first out: take removes the oldest element.") }

        let highest = highestCount.current
        if highest > capacity { record(
            "count reached \(highest) in a buffer of capacity \(capacity). put must wait while count == capacity (>=, not >), and check again after every wake-up: another producer may have filled the slot first.") }
    }
}
