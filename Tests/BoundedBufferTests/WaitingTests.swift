import BoundedBuffer
import Foundation
import KataTestSupport
import Testing

/// How a thread waits: asleep on the condition (no CPU), and only until its deadline, however
/// often it is woken meanwhile. Each check runs isolated.
@Suite("Waiting", .exitIsAFailure)
struct WaitingTests {
    /// How long the consumers are kept waiting.
    static let blockedSeconds = 1.0
    /// How many consumers wait at once: their CPU times add up, so polling shows even when a
    /// loaded machine gives each poller only a small share of a core.
    static let waiters = 4
    /// The most CPU time the waiting consumers may use together. Threads asleep in a condition wait
    /// use well under a millisecond each; threads polling in a loop use a share of a core each,
    /// tens of milliseconds per second even on a machine loaded many times over.
    static let allowedCPUSeconds = 0.05
    /// The most times the waiting consumers may be switched off a CPU, together (where the
    /// platform counts it). A waiter asleep in a condition wait: about once, plus a few when it
    /// wakes and meets the lock taken. A poller: once per poll, hundreds per second.
    static let allowedSwitches = 100

    struct Measured: Sendable, Equatable {
        var outcome: Outcome<Int>
        var cpuSeconds: Double
        var wallSeconds: Double
        var switches: Int?
    }

    @Test("Consumers blocked for a second use almost no CPU (they sleep; they do not poll)")
    func noBusyWaiting() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "consumers waiting on an empty buffer")
            WaitingTests.consumersSleep()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "consumers waiting on an empty buffer",
            crashHint: "A crash here usually means take removed from an empty array.")
    }

    static func consumersSleep() {
        let place = "consumers waiting on an empty buffer"
        let buffer = BoundedBuffer<Int>(capacity: waiters)
        let consumers = (0..<waiters).map { _ in
            WatchedCall<Measured> { [buffer] in
                let cpu = threadCPUSeconds()
                let switches = threadContextSwitches()
                let wall = monotonicSeconds()
                let outcome = buffer.takeOutcome()
                let switched = threadContextSwitches().flatMap { after in switches.map { after - $0 } }
                return .returned(Measured(
                    outcome: outcome, cpuSeconds: threadCPUSeconds() - cpu, wallSeconds: monotonicSeconds() - wall, switches: switched))
            }
        }
        // Keep them waiting, but say so at once if one does not wait at all.
        let end = monotonicSeconds() + blockedSeconds
        while monotonicSeconds() < end {
            for consumer in consumers {
                if case .returned(let early)? = consumer.outcome {
                    Issue.record("take() on an empty buffer \(early.outcome) after \(String(format: "%.2f", early.wallSeconds)) s, before any element was put; it should block until one is.")
                    return
                }
            }
            usleep(10_000)
        }
        let producer = WatchedCall { [buffer] in
            Outcome { () -> Stored in for element in 0..<waiters { try buffer.put(element, timeout: 1) }; return Stored() }
        }
        _ = producer.outcome(in: place, waitingFor: "\(waiters) puts into an empty buffer of capacity \(waiters)", hint: "put must not block on a buffer with room.")
        var measured: [Measured] = []
        for consumer in consumers {
            guard case .returned(let one)? = consumer.outcome(
                in: place, waitingFor: "the waiting takes returning after \(waiters) puts",
                hint: "After appending, put must wake the waiting consumers.")
            else { return }
            measured.append(one)
        }
        let got = measured.compactMap { if case .returned(let value) = $0.outcome { value } else { nil } }
        #expect(got.sorted() == Array(0..<waiters), "\(waiters) waiting takes, then puts of 0...\(waiters - 1): the takes gave \(measured.map(\.outcome.description)); each element should reach exactly one of them.")
        let cpu = measured.map(\.cpuSeconds).reduce(0, +)
        let wall = measured.map(\.wallSeconds).max() ?? 0
        let counted = measured.compactMap(\.switches)
        let switches = counted.count == measured.count ? counted.reduce(0, +) : nil
        #expect(
            switches.map { $0 <= allowedSwitches } ?? true,
            "\(waiters) consumers waited \(String(format: "%.2f", wall)) s and were switched off the CPU \(switches ?? 0) times together (at most \(allowedSwitches) allowed; a sleeping waiter is switched off about once): they are polling (lock, check, unlock, yield or sleep a little, again). Wait on the condition instead: condition.wait() sleeps until someone wakes it.")
        #expect(
            cpu <= allowedCPUSeconds,
            "\(waiters) consumers waited \(String(format: "%.2f", wall)) s and used \(String(format: "%.3f", cpu)) s of CPU together (at most \(allowedCPUSeconds) allowed): they are polling (lock, check, unlock, yield, again). Wait on the condition instead: condition.wait() sleeps until someone wakes it.")
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
        // A call that already ended must have ended by timing out at its deadline (on a loaded
        // machine the traffic may start late); anything else is wrong at once.
        for (call, seconds, name) in [
            (consumer.outcome?.description, consumer.seconds, "take(timeout: \(timeout)) on an empty buffer"),
            (producer.outcome?.description, producer.seconds, "put(1, timeout: \(timeout)) on a full buffer"),
        ] {
            if let call, let seconds, call != "threw .timedOut" || seconds < timeout - 0.05 {
                Issue.record("\(name) \(call) after \(String(format: "%.3f", seconds)) s, with nothing else happening; it should wait \(timeout) s, then throw .timedOut.")
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
