import BoundedBuffer
import Foundation
import KataTestSupport
import Testing

/// Blocking and waking between threads: a producer waits for room, a consumer waits for an
/// element, and close() wakes them all. The blocked calls run on dedicated threads that the
/// check watches with deadlines; each check runs isolated, so a crash is a failed check.
@Suite("Blocking and waking", .exitIsAFailure)
struct BlockingTests {
    @Test("A producer blocked on a full buffer resumes when a consumer takes")
    func blockedProducerResumes() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "a producer blocked on a full buffer")
            BlockingTests.producerWaitsForRoom()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "a producer blocked on a full buffer",
            crashHint: "A crash here usually means put or take touched the storage without the lock, or take removed from an empty array.")
    }

    static func producerWaitsForRoom() {
        let place = "a producer blocked on a full buffer"
        let buffer = BoundedBuffer<Int>(capacity: 2)
        let fill = WatchedCall { [buffer] in
            Outcome { try buffer.put(1, timeout: 1); try buffer.put(2, timeout: 1); return buffer.count }
        }
        guard let filled = fill.outcome(in: place, waitingFor: "two puts into an empty buffer of capacity 2", hint: "put must block only while the buffer is full."),
              filled == .returned(2)
        else {
            if let filled = fill.outcome {
                Issue.record("put(1) and put(2) into an empty buffer of capacity 2, then count: \(filled); expected count 2. Store the elements first.")
            }
            return
        }
        let producer = WatchedCall { [buffer] in buffer.putOutcome(3) }
        letThemBlock([producer])
        if let early = producer.outcome {
            Issue.record("put(3) on a full buffer (capacity 2, holding 2) \(early) at once, with no consumer around; it should block until a take makes room. The check must sit in a loop: while count == capacity { condition.wait() }.")
            return
        }
        let consumer = WatchedCall { [buffer] in buffer.takeOutcome(timeout: 1) }
        guard let taken = consumer.outcome(in: place, waitingFor: "take on a full buffer returning", hint: "take must not block when the buffer holds elements, and must not wait for the lock held by a sleeping producer: wait() gives the lock up while it sleeps.") else { return }
        #expect(taken == .returned(1), "take on the full buffer should return the oldest element, 1, got: \(taken).")
        guard let resumed = producer.outcome(
            in: place, waitingFor: "the blocked put(3) returning after a take made room",
            hint: "After removing an element, take must wake the producers waiting for room (broadcast(), or signal() on a condition only producers wait on).")
        else { return }
        #expect(resumed == .returned(Stored()), "The blocked put(3) \(resumed) once a take made room; it should store 3 and return.")
        let rest = WatchedCall { [buffer] in Outcome { [try buffer.take(timeout: 1), try buffer.take(timeout: 1)] } }
        let remaining = rest.outcome(in: place, waitingFor: "two takes of the elements left")
        #expect(remaining == .returned([2, 3]), "After the producer resumed, the buffer should hold 2, 3 in order, got: \(remaining.map(\.description) ?? "no answer").")
    }

    @Test("A consumer blocked on an empty buffer resumes when a producer puts")
    func blockedConsumerResumes() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "a consumer blocked on an empty buffer")
            BlockingTests.consumerWaitsForAnElement()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "a consumer blocked on an empty buffer",
            crashHint: "A crash here usually means take removed from an empty array: after waking, check again that an element is there (while, not if).")
    }

    static func consumerWaitsForAnElement() {
        let place = "a consumer blocked on an empty buffer"
        let buffer = BoundedBuffer<Int>(capacity: 2)
        let consumers = [WatchedCall { [buffer] in buffer.takeOutcome() }, WatchedCall { [buffer] in buffer.takeOutcome() }]
        letThemBlock(consumers)
        if let early = consumers.compactMap(\.outcome).first {
            Issue.record("take() on an empty buffer \(early) at once, with no producer around; it should block until a put brings an element: while the buffer is empty { condition.wait() }.")
            return
        }
        for element in [7, 8] {
            let producer = WatchedCall { [buffer] in buffer.putOutcome(element, timeout: 1) }
            guard let put = producer.outcome(in: place, waitingFor: "put(\(element)) into an empty buffer", hint: "put must not block on a buffer with room.") else { return }
            guard put == .returned(Stored()) else {
                Issue.record("put(\(element), timeout: 1) into a buffer with room \(put); it should store the element and return.")
                return
            }
        }
        var got: [Int] = []
        for consumer in consumers {
            guard let outcome = consumer.outcome(
                in: place, waitingFor: "both blocked takes returning after two puts",
                hint: "After appending, put must wake the waiting consumers (broadcast(), or signal() on a condition only consumers wait on).")
            else { return }
            guard case .returned(let element) = outcome else {
                Issue.record("A take blocked on an empty buffer \(outcome) after a put; it should return the element.")
                return
            }
            got.append(element)
        }
        #expect(got.sorted() == [7, 8], "Two blocked consumers and two puts (7, 8): the consumers got \(got). Each element goes to exactly one consumer.")
        #expect(buffer.count == 0, "Both elements were taken: count should be 0, got \(buffer.count).")
    }

    static let producers = 3
    static let consumers = 3

    @Test("close() wakes every blocked producer and consumer; elements already in the buffer are delivered")
    func closeWakesEveryone() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "close with blocked producers and consumers")
            BlockingTests.closeWakesAllWaiters()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "close with blocked producers and consumers",
            crashHint: "A crash here usually means a woken take removed from an empty, closed buffer: closed and empty throws .closed.")
    }

    static func closeWakesAllWaiters() {
        let place = "close with blocked producers and consumers"
        let full = BoundedBuffer<Int>(capacity: 2)
        let empty = BoundedBuffer<Int>(capacity: 2)
        let fill = WatchedCall { [full] in Outcome { try full.put(10, timeout: 1); try full.put(11, timeout: 1); return full.count } }
        guard let filled = fill.outcome(in: place, waitingFor: "two puts into an empty buffer of capacity 2"), filled == .returned(2) else {
            if let filled = fill.outcome {
                Issue.record("put(10) and put(11) into an empty buffer of capacity 2, then count: \(filled); expected count 2. Store the elements first.")
            }
            return
        }
        let producers = (0..<producers).map { index in WatchedCall { [full] in full.putOutcome(20 + index) } }
        let consumers = (0..<consumers).map { _ in WatchedCall { [empty] in empty.takeOutcome() } }
        letThemBlock(producers)
        letThemBlock(consumers, settle: 0)
        let early = producers.compactMap(\.outcome).map(\.description) + consumers.compactMap(\.outcome).map(\.description)
        guard early.isEmpty else {
            Issue.record("Before close(), \(early.count) of \(producers.count + consumers.count) calls that should block (put on a full buffer, take on an empty one) returned at once: \(early.prefix(2).joined(separator: ", ")). They should wait on the condition.")
            return
        }
        full.close()
        empty.close()
        // One shared deadline for all six: a stuck waiter costs the check seconds once, not six times.
        let end = monotonicSeconds() + Deadline.promptSeconds
        func remaining() -> Double { max(0, end - monotonicSeconds()) }
        var stuck: [String] = []
        var wrong: [String] = []
        for (index, producer) in producers.enumerated() {
            switch producer.outcome(within: remaining()) {
            case nil: stuck.append("producer \(index)")
            case .threw(.closed): break
            case let other?: wrong.append("a blocked put \(other)")
            }
        }
        for (index, consumer) in consumers.enumerated() {
            switch consumer.outcome(within: remaining()) {
            case nil: stuck.append("consumer \(index)")
            case .threw(.closed): break
            case let other?: wrong.append("a blocked take \(other)")
            }
        }
        #expect(
            stuck.isEmpty,
            "After close(), \(stuck.count) of \(producers.count + consumers.count) blocked calls were still waiting (\(stuck.joined(separator: ", "))). close() must wake every waiter: broadcast(), not signal(), which wakes only one.")
        #expect(wrong.isEmpty, "When the buffer is closed, a blocked put and a take on an empty buffer throw BufferError.closed; instead \(wrong.prefix(2).joined(separator: ", ")).")
        #expect(full.count == 2, "close() must keep the elements already in the buffer: count is \(full.count), expected 2 (10 and 11). The woken producers must not have stored anything.")
        let drain = WatchedCall { [full] in Outcome { () -> [Outcome<Int>] in [full.takeOutcome(timeout: 1), full.takeOutcome(timeout: 1), full.takeOutcome(timeout: 1)] } }
        guard let drained = drain.outcome(in: place, waitingFor: "three takes on the closed buffer holding 10, 11"), case .returned(let takes) = drained else { return }
        #expect(
            takes == [.returned(10), .returned(11), .threw(.closed)],
            "Three takes on the closed buffer that held 10, 11 gave \(takes.map(\.description)); expected 10, 11, then .closed: elements left in a closed buffer are still delivered.")
    }
}
