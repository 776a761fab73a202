import AsyncBridge
import Foundation
import KataTestSupport
import Testing

/// `ticks(every:onFire:)`: an AsyncStream over a DispatchSourceTimer whose life ends with the
/// consumer's. Isolated: a dispatch source misused (never resumed, resumed twice) traps.
@Suite("ticks(every:onFire:)", .exitIsAFailure)
struct TicksTests {
    static let interval = 0.04
    static var dispatchInterval: DispatchTimeInterval { .milliseconds(Int(interval * 1000)) }
    /// How many times a control timer of the check's own must fire, after the consumer stopped,
    /// before the check believes that the learner's timer has stopped too. Events, not a clock:
    /// on a loaded machine both timers are late together.
    static let controlFires = 4

    /// Counts the learner's fires beyond `before` until the control timer has fired
    /// `controlFires` times (a stray fire, or `enough()`, ends the wait at once).
    static func strayFires(after before: Int, _ fires: Locked<Int>, orUntil enough: () -> Bool = { false }) async -> Int {
        let control = Locked(0)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "control timer"))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { control.withLock { $0 += 1 } }
        timer.resume()
        defer { timer.cancel() }
        await Awaiting.until(seconds: 2 * Deadline.promptSeconds, in: "the check's control timer", waitingFor: "4 fires") {
            control.current >= controlFires || fires.current > before || enough()
        }
        // One more look, after the control's last fire: a stray fire is due at about the same moment.
        try? await Task.sleep(nanoseconds: UInt64(interval * 0.5e9))
        return fires.current - before
    }

    @Test("Ticks 0, 1, 2, 3, 4 come in order at about the interval, and onFire runs for each")
    func ticksInOrder() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "ticks")
            await TicksTests.inOrder()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "ticks", crashHint: "libdispatch traps when a source is released without ever being resumed, or resumed twice: resume the timer exactly once.")
    }

    static func inOrder() async {
        let fires = Locked(0)
        let start = DispatchTime.now()
        let task = Tracked { () -> [Int] in
            var values: [Int] = []
            for await value in ticks(every: dispatchInterval, onFire: { fires.withLock { $0 += 1 } }) {
                values.append(value)
                if values.count == 5 { break }
            }
            return values
        }
        let outcome = await Awaiting.outcome(of: task, within: Deadline.promptSeconds)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        guard case .returned(let values) = outcome else {
            task.cancel()
            Issue.record("Iterating ticks(every: 40 ms) for 5 values \(outcome.summary) after \(Int(Deadline.promptSeconds)) s: the timer must fire every interval and yield from its handler.")
            return
        }
        guard values == [0, 1, 2, 3, 4] else {
            Issue.record("ticks(every: 40 ms) gave \(values); expected 0, 1, 2, 3, 4 and more. \(values.isEmpty ? "The stream ended without a value: keep it open, and yield a number from the timer's handler each time it fires." : "Yield 0, 1, 2, … in order, one per fire.")")
            return
        }
        #expect(elapsed >= 4 * interval * 0.5, "5 ticks 40 ms apart came after \(Int(elapsed * 1000)) ms; expected at least about 160 ms: the first tick comes one interval after the start, the next ones every interval (schedule(deadline: .now() + interval, repeating: interval)).")
        #expect(fires.current >= 5, "onFire ran \(fires.current) times for 5 ticks: call it in the timer's handler each time it fires.")
    }

    @Test("After the consumer breaks out of the loop, or a stream is let go without ever being iterated, the timer stops firing")
    func breakStopsTheTimer() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "ticks after break, and a stream let go")
            await TicksTests.stopsAfterBreak()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "ticks after break, and a stream let go", crashHint: "libdispatch traps when a source is released without ever being resumed, or resumed twice, or resumed after cancel().")
    }

    /// A stream made and let go in one statement, never iterated: letting go of it ends it
    /// (`onTermination` runs, with `.cancelled`), so its timer must never fire. Made again (10
    /// times at most) until that statement took less than an interval: then no fire was due
    /// before the stream was let go, and every fire counted came after. If it never was that
    /// quick, one fire under way at that moment is allowed.
    static func streamLetGo() -> (fires: Locked<Int>, allowed: Int) {
        var attempt = 0
        while true {
            attempt += 1
            let fires = Locked(0)
            let start = DispatchTime.now().uptimeNanoseconds
            _ = ticks(every: dispatchInterval, onFire: { fires.withLock { $0 += 1 } })
            let took = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            if took < interval { return (fires, 0) }
            if attempt == 10 { return (fires, fires.current + 1) }
        }
    }

    static func stopsAfterBreak() async {
        // Its fires are counted while the consumer below iterates a stream of its own and breaks.
        let letGo = streamLetGo()
        let fires = Locked(0)
        let task = Tracked { () -> Int? in
            var last: Int?
            for await value in ticks(every: dispatchInterval, onFire: { fires.withLock { $0 += 1 } }) {
                last = value
                if value == 2 { break }
            }
            return last
        }
        let outcome = await Awaiting.outcome(of: task, within: Deadline.promptSeconds)
        // The loop is over and its iterator gone: from here on, no fire may begin.
        let firesWhenStopped = fires.current
        guard case .returned(let last) = outcome, last == 2 else {
            task.cancel()
            Issue.record("A consumer waiting for tick 2 to break \(outcome.summary)\(outcome.ended ? "" : " after \(Int(Deadline.promptSeconds)) s"): the stream should tick 0, 1, 2, … every interval.")
            return
        }
        let stray = await strayFires(after: firesWhenStopped, fires, orUntil: { letGo.fires.current > letGo.allowed })
        let firesAfterLettingGo = letGo.fires.current
        #expect(firesAfterLettingGo <= letGo.allowed, "A stream let go at once, never iterated, kept its timer firing: \(firesAfterLettingGo) fire(s) after it was let go, while a consumer of another stream took 3 ticks and broke, and a timer of the check's own, every 40 ms too, fired up to \(controlFires) times. Letting go of a stream ends it: continuation.onTermination runs (with .cancelled), and must cancel the timer right there.")
        #expect(stray == 0, "The timer fired \(stray) more times after the consumer broke out of the loop (while a timer of the check's own, every 40 ms too, fired \(controlFires) times). Cancel the timer in continuation.onTermination, which runs when the consumer stops iterating, not when a later yield finds nobody listening.")
    }

    @Test("After the consuming task is cancelled, the timer stops firing")
    func cancellingTheConsumerStopsTheTimer() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "ticks after the consumer's task was cancelled")
            await TicksTests.stopsAfterCancel()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "ticks after the consumer's task was cancelled", crashHint: "libdispatch traps when a source is released without ever being resumed, or resumed twice, or resumed after cancel().")
    }

    static func stopsAfterCancel() async {
        let fires = Locked(0)
        let received = Locked(0)
        let task = Tracked { () -> Int in
            for await _ in ticks(every: dispatchInterval, onFire: { fires.withLock { $0 += 1 } }) {
                received.withLock { $0 += 1 }
            }
            return received.current
        }
        guard await Awaiting.until(in: "ticks", waitingFor: "the consumer receiving 2 ticks",
                                   unless: { task.isFinished ? "The stream ended after \(received.current) ticks although its consumer kept iterating: it should tick until the consumer stops." : nil },
                                   { received.current >= 2 }) else { return task.cancel() }
        task.cancel()
        let outcome = await Awaiting.outcome(of: task, within: Deadline.promptSeconds)
        let firesWhenStopped = fires.current
        guard outcome.ended else {
            Issue.record("The consumer's loop did not end after its task was cancelled.")
            return
        }
        let stray = await strayFires(after: firesWhenStopped, fires)
        #expect(stray == 0, "The timer fired \(stray) more times after the consuming task was cancelled (while a timer of the check's own, every 40 ms too, fired \(controlFires) times). Cancelling the task ends the stream (onTermination runs with .cancelled): cancel the timer there.")
    }
}
