import BoundedBuffer
import Foundation
import KataTestSupport
import Testing

/// How a thread waits: asleep on the condition (no CPU), and only until its deadline, however
/// often it is woken meanwhile. Each check runs isolated.
@Suite("Waiting", .exitIsAFailure)
struct WaitingTests {
    /// How long the consumer is kept waiting.
    static let blockedSeconds = 0.8
    /// The most CPU time a thread asleep for `blockedSeconds` may use. A thread asleep in a
    /// condition wait uses microseconds; one polling in a loop uses a large share of a core even
    /// on a loaded machine.
    static let allowedCPUSeconds = 0.05

    struct Measured: Sendable, Equatable {
        var outcome: Outcome<Int>
        var cpuSeconds: Double
        var wallSeconds: Double
    }

    @Test("A consumer blocked for most of a second uses almost no CPU (it sleeps; it does not poll)")
    func noBusyWaiting() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "a consumer waiting on an empty buffer")
            WaitingTests.consumerSleeps()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "a consumer waiting on an empty buffer",
            crashHint: "A crash here usually means take removed from an empty array.")
    }

    static func consumerSleeps() {
        let place = "a consumer waiting on an empty buffer"
        let buffer = BoundedBuffer<Int>(capacity: 1)
        let consumer = WatchedCall<Measured> { [buffer] in
            let cpu = threadCPUSeconds()
            let wall = monotonicSeconds()
            let outcome = buffer.takeOutcome()
            return .returned(Measured(outcome: outcome, cpuSeconds: threadCPUSeconds() - cpu, wallSeconds: monotonicSeconds() - wall))
        }
        // Keep it waiting, but say so at once if it does not wait at all.
        let end = monotonicSeconds() + blockedSeconds
        while monotonicSeconds() < end {
            if case .returned(let early)? = consumer.outcome {
                Issue.record("take() on an empty buffer \(early.outcome) after \(String(format: "%.2f", early.wallSeconds)) s, before any element was put; it should block until one is.")
                return
            }
            usleep(10_000)
        }
        let producer = WatchedCall { [buffer] in buffer.putOutcome(42, timeout: 1) }
        _ = producer.outcome(in: place, waitingFor: "put(42) into an empty buffer", hint: "put must not block on a buffer with room.")
        guard case .returned(let measured)? = consumer.outcome(
            in: place, waitingFor: "the waiting take returning after put(42)",
            hint: "After appending, put must wake the waiting consumers.")
        else { return }
        #expect(measured.outcome == .returned(42), "The waiting take \(measured.outcome) after put(42); it should return 42.")
        #expect(
            measured.cpuSeconds <= allowedCPUSeconds,
            "The consumer waited \(String(format: "%.2f", measured.wallSeconds)) s and used \(String(format: "%.3f", measured.cpuSeconds)) s of CPU (at most \(allowedCPUSeconds) allowed): it is polling (lock, check, unlock, yield, again). Wait on the condition instead: condition.wait() sleeps until someone signals.")
    }

    static let timeout = 0.5
    /// How long a waiter may take past its timeout before the check calls it stuck.
    static let grace = 1.5

    @Test("A timeout expires on time even while other threads keep waking the waiter")
    func timeoutsHoldUnderTraffic() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "timed waits under traffic")
            WaitingTests.deadlinesHoldUnderTraffic()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "timed waits under traffic",
            crashHint: "A crash here usually means a woken take removed from an empty array: check again after every wake-up.")
    }

    static func deadlinesHoldUnderTraffic() {
        // A waits for an element, B for room. Another thread keeps changing each buffer and
        // changing it back at once, so the waiter is woken every few milliseconds and almost always
        // finds its condition still false. (If it does win an element or a slot, it may return.)
        let empty = BoundedBuffer<Int>(capacity: 1)
        let full = BoundedBuffer<Int>(capacity: 1)
        let prefill = WatchedCall { [full] in full.putOutcome(0, timeout: 1) }
        guard prefill.outcome(in: "timed waits under traffic", waitingFor: "put(0) into an empty buffer") == .returned(Stored()), full.count == 1 else {
            Issue.record("put(0, timeout: 1) into an empty buffer of capacity 1 should store it (count 1), got count \(full.count).")
            return
        }
        let consumer = WatchedCall { [empty] in empty.takeOutcome(timeout: timeout) }
        let producer = WatchedCall { [full] in full.putOutcome(1, timeout: timeout) }
        letThemBlock([consumer], settle: 0)
        letThemBlock([producer], settle: 0.05)
        for (call, name) in [(consumer.outcome?.description, "take(timeout: \(timeout)) on an empty buffer"), (producer.outcome?.description, "put(1, timeout: \(timeout)) on a full buffer")] {
            if let call {
                Issue.record("\(name) \(call) at once; it should wait up to \(timeout) s.")
                return
            }
        }
        let running = Locked(true)
        let traffic = ThreadGang.spawn {
            while running.current {
                _ = empty.putOutcome(7, timeout: 0.05)
                _ = empty.takeOutcome(timeout: 0)
                _ = full.takeOutcome(timeout: 0.05)
                _ = full.putOutcome(8, timeout: 0)
                usleep(2_000)
            }
        }
        let end = monotonicSeconds() + timeout + grace
        func remaining() -> Double { max(0, end - monotonicSeconds()) }
        let taken = consumer.outcome(within: remaining())
        let put = producer.outcome(within: remaining())
        running.withLock { $0 = false }
        _ = traffic.wait(timeout: .now() + 2)

        var stuck: [String] = []
        if taken == nil { stuck.append("take(timeout: \(timeout))") }
        if put == nil { stuck.append("put(timeout: \(timeout))") }
        #expect(
            stuck.isEmpty,
            "\(stuck.joined(separator: " and ")) still waited after \(timeout + grace) s while another thread kept using the buffer. The deadline must be fixed once, when the call starts: wait(until: deadline) in the loop, never wait(until: Date(timeIntervalSinceNow: timeout)), which starts over at every wake-up.")
        for (outcome, call) in [(taken?.description, consumer.seconds), (put?.description, producer.seconds)] {
            guard let outcome, let seconds = call, outcome == "threw .timedOut" else { continue }
            #expect(seconds >= timeout - 0.05, "A call with timeout \(timeout) threw .timedOut after \(String(format: "%.3f", seconds)) s, before its deadline.")
        }
        let acceptable: (String?) -> Bool = { $0 == nil || $0 == "threw .timedOut" || $0!.hasPrefix("returned") }
        #expect(
            acceptable(taken?.description) && acceptable(put?.description),
            "Under traffic, a timed take \(taken?.description ?? "-") and a timed put \(put?.description ?? "-"); each should return normally or throw .timedOut.")
    }
}
