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
    /// The most times the process's threads may be switched off a CPU while the consumers wait.
    /// Waiters asleep in a condition wait: about once each; the rest of the process is idle but for
    /// a little bookkeeping. A poller: once per poll, hundreds per second.
    static let allowedSwitches = 100
    /// How long the check watches for a take that does not block at all, before the measured window.
    static let earlySeconds = 0.2

    struct Measured: Sendable, Equatable {
        var outcome: Outcome<Int>
        var cpuSeconds: Double
        var wallSeconds: Double
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
                let wall = monotonicSeconds()
                let outcome = buffer.takeOutcome()
                return .returned(Measured(outcome: outcome, cpuSeconds: threadCPUSeconds() - cpu, wallSeconds: monotonicSeconds() - wall))
            }
        }
        // Say so at once if one does not wait at all.
        let early = monotonicSeconds() + earlySeconds
        while monotonicSeconds() < early {
            if returnedEarly(consumers) { return }
            usleep(10_000)
        }
        // Then keep them waiting while this thread sleeps in one go: the process is quiet but for them.
        let switchesBefore = processContextSwitches()
        usleep(UInt32(blockedSeconds * 1_000_000))
        let switches = processContextSwitches() - switchesBefore
        if returnedEarly(consumers) { return }
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
        #expect(
            cpu <= allowedCPUSeconds && switches <= allowedSwitches,
            "\(waiters) consumers waited \(String(format: "%.2f", wall)) s; together they used \(String(format: "%.3f", cpu)) s of CPU (at most \(allowedCPUSeconds) allowed), and in \(String(format: "%.1f", blockedSeconds)) s of waiting the process's threads were switched off the CPU \(switches) times (at most \(allowedSwitches) allowed; a sleeping waiter is switched off about once). They are polling (lock, check, unlock, yield or sleep a little, again). Wait on the condition instead: condition.wait() sleeps until someone wakes it.")
    }

    /// Records a failure if a consumer's take returned before any element was put.
    static func returnedEarly(_ consumers: [WatchedCall<Measured>]) -> Bool {
        for consumer in consumers {
            if case .returned(let early)? = consumer.outcome {
                Issue.record("take() on an empty buffer \(early.outcome) after \(String(format: "%.2f", early.wallSeconds)) s, before any element was put; it should block until one is.")
                return true
            }
        }
        return false
    }

    static let timeout = 1.0
    /// How long a waiter may take past its timeout before the check calls it stuck.
    static let grace = 1.5
    /// Consumers waiting with a timeout, and how often a producer puts one element meanwhile:
    /// each put wakes the waiters, one of them gets the element, the others find the buffer empty
    /// again. More waiters than puts in the whole window, so some always find it empty; puts ten
    /// times as often as the timeout, so that even a loaded machine leaves no gap as long as it.
    static let timedWaiters = 32
    static let putInterval = 0.1

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
        let buffer = BoundedBuffer<Int>(capacity: 64)
        let waiters = (0..<timedWaiters).map { _ in WatchedCall { [buffer] in buffer.takeOutcome(timeout: timeout) } }
        letThemBlock(waiters, settle: 0)
        // A waiter that already ended must have timed out at its deadline (on a loaded machine
        // the puts may start late); anything else is wrong at once.
        for waiter in waiters {
            if let outcome = waiter.outcome, let seconds = waiter.seconds, outcome != .threw(.timedOut) || seconds < timeout - 0.05 {
                Issue.record("take(timeout: \(timeout)) on an empty buffer \(outcome) after \(String(format: "%.3f", seconds)) s, with nothing put; it should wait \(timeout) s, then throw .timedOut.")
                return
            }
        }
        let running = Locked(true)
        let puts = Locked(0)
        let producer = ThreadGang.spawn {
            var next = 100
            while running.current {
                usleep(UInt32(putInterval * 1_000_000))
                guard running.current else { break }
                if buffer.putOutcome(next, timeout: 0.05) == .returned(Stored()) { puts.withLock { $0 += 1 } }
                next += 1
            }
        }
        let end = monotonicSeconds() + timeout + grace
        var outcomes: [Outcome<Int>?] = []
        for waiter in waiters {
            outcomes.append(waiter.outcome(within: max(0, end - monotonicSeconds())))
        }
        running.withLock { $0 = false }
        _ = producer.wait(timeout: .now() + 2)

        let stuck = outcomes.filter { $0 == nil }.count
        #expect(
            stuck == 0,
            "\(stuck) of \(timedWaiters) take(timeout: \(timeout)) calls still waited after \(timeout + grace) s while a producer put an element every \(putInterval) s (each put woke them; one got the element, the others found the buffer empty again). The deadline must be fixed once, when the call starts, and every wait must end at it: wait(until: deadline) in the loop; never a plain wait(), and never wait(until: Date(timeIntervalSinceNow: timeout)), which starts over at every wake-up.")
        var early = 0
        var wrong: [String] = []
        var got: [Int] = []
        for (waiter, outcome) in zip(waiters, outcomes) {
            switch outcome {
            case .returned(let value)?: got.append(value)
            case .threw(.timedOut)?: if (waiter.seconds ?? 0) < timeout - 0.05 { early += 1 }
            case let other?: wrong.append(other.description)
            case nil: break
            }
        }
        #expect(early == 0, "\(early) take(timeout: \(timeout)) calls threw .timedOut before \(timeout) s had passed: a wake-up is not a timeout; check the condition again and wait until the deadline.")
        #expect(wrong.isEmpty, "Timed takes on an open buffer should return an element or throw .timedOut; \(wrong.count) did otherwise, e.g. \(wrong.first ?? "").")
        #expect(Set(got).count == got.count, "Two waiters returned the same element: \(got.sorted()). Each element goes to exactly one consumer.")
        // The timed-out waiters must leave the buffer usable: what was put and not taken is still there.
        let left = WatchedCall { [buffer] in Outcome { buffer.count } }
        let expected = puts.current - got.count
        if let count = left.outcome(in: "timed waits under traffic", waitingFor: "count after the timed waits") {
            #expect(count == .returned(expected), "After the timed waits, count is \(count), expected \(expected) (\(puts.current) put, \(got.count) taken): a timed-out take must leave the buffer as it was.")
        }
    }
}
