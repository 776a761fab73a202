import Dispatch
import Foundation
import KataTestSupport
import Testing

/// What a watched thread is doing: the call it is in (so that a deadlock is reported with the call
/// that never returned) and how many calls it has finished (so that a stall is seen at once).
///
/// A thread stuck in a deadlocked lock can never be freed. So every check that calls into the
/// bank or the worker runs isolated, makes its calls on dedicated threads, and watches them from
/// the check's own thread with a deadline: a deadlock then fails the check with
/// "Deadlock suspected in …", and the isolated process ends with the stuck threads in it.
final class Steps: @unchecked Sendable {
    private let state = Locked((call: "its first call returning", hint: String?.none, finished: 0))

    /// Call before each call into the code under test; `hint` is shown if that call never returns.
    func enter(_ call: String, ifStuck hint: String? = nil) {
        state.withLock { $0 = (call + " returning", hint, $0.finished + 1) }
    }

    /// Call before waiting for an event (a block finishing); `hint` is shown if it never comes.
    func waitFor(_ event: String, ifStuck hint: String? = nil) {
        state.withLock { $0 = (event, hint, $0.finished + 1) }
    }

    /// Call after each call into the code under test (in a loop where naming every call costs too much).
    func tick() {
        state.withLock { $0.finished += 1 }
    }

    var finished: Int { state.current.finished }
    var call: String { state.current.call }
    var hint: String? { state.current.hint }
}

enum Watched {
    /// Runs `body` on one dedicated thread and waits at most `seconds` for it. On a miss records
    /// "Deadlock suspected in <place>: <the call it is in> returning did not happen within N s."
    /// with that call's hint, and returns false; the stuck thread is left behind.
    @discardableResult
    static func onOneThread(
        in place: String, seconds: Double = Deadline.promptSeconds,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: @escaping @Sendable (Steps) -> Void
    ) -> Bool {
        let steps = Steps()
        let done = ThreadGang.spawn { body(steps) }
        if done.wait(timeout: .now() + seconds) == .success { return true }
        DeadlockReport.record(in: place, waitingFor: steps.call, seconds: seconds, hint: steps.hint, sourceLocation: sourceLocation)
        return false
    }

    /// Runs `body(index, steps)` on `count` dedicated threads released together. Each thread
    /// calls `steps[index].tick()` (or `enter`) around its calls into the code under test. The
    /// gang is watched by progress, not by a stopwatch: if no thread finishes a call for
    /// `stallSeconds` while some are still running, that is a deadlock (a correct bank finishes a
    /// call in microseconds), reported with `hint` and the call each stuck thread is in.
    /// `totalSeconds` bounds a gang that keeps moving but never ends.
    @discardableResult
    static func gang(
        _ count: Int, in place: String, stallSeconds: Double = Deadline.promptSeconds, totalSeconds: Double = 8,
        hint: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: @escaping @Sendable (_ index: Int, _ steps: Steps) -> Void
    ) -> Bool {
        let steps = (0..<count).map { _ in Steps() }
        let running = Locked(Set(0..<count))
        let start = StartBarrier(parties: count)
        let done = DispatchGroup()
        for index in 0..<count {
            done.enter()
            let thread = Thread {
                start.arrive(seconds: stallSeconds)
                body(index, steps[index])
                running.withLock { _ = $0.remove(index) }
                done.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        let began = DispatchTime.now().uptimeNanoseconds
        var lastProgress = began
        var lastFinished = -1
        while done.wait(timeout: .now() + 0.02) != .success {
            let now = DispatchTime.now().uptimeNanoseconds
            let finished = steps.reduce(0) { $0 + $1.finished }
            if finished != lastFinished {
                lastFinished = finished
                lastProgress = now
            }
            let stalled = Double(now - lastProgress) / 1e9 >= stallSeconds
            let tooLong = Double(now - began) / 1e9 >= totalSeconds
            guard stalled || tooLong else { continue }
            let stuck = running.current.count
            let what = stalled
                ? "any call of the \(stuck) of \(count) threads still running returning"
                : "all \(count) threads finishing (\(stuck) still running)"
            DeadlockReport.record(in: place, waitingFor: what, seconds: stalled ? stallSeconds : totalSeconds, hint: hint, sourceLocation: sourceLocation)
            return false
        }
        return true
    }
}

/// Proves exclusion by events rather than by luck: a holder waits inside a body for an intruder
/// (at most `seconds`), and an intruder is started only once the holder is inside. A correct
/// implementation keeps the intruder out for the whole window; a wrong one lets it in within
/// microseconds, and the window ends at once. On a loaded machine, threads that merely run "at the
/// same time" may in fact run one after another and never meet; this does not depend on that.
final class IntruderWindow: @unchecked Sendable {
    let seconds: Double
    private let holderIn = DispatchSemaphore(value: 0)
    private let intruderIn = DispatchSemaphore(value: 0)
    private let state = Locked((holding: false, intrusions: [String]()))

    init(seconds: Double = 0.3) { self.seconds = seconds }

    /// Call from inside the holder's body: opens the window and waits for an intruder.
    func hold() {
        state.withLock { $0.holding = true }
        holderIn.signal()
        if intruderIn.wait(timeout: .now() + seconds) == .success { intruderIn.signal() }
        state.withLock { $0.holding = false }
    }

    /// Call from the intruder's thread before it calls in: waits until the holder is inside.
    func waitForHolder() -> Bool {
        holderIn.wait(timeout: .now() + Deadline.promptSeconds) == .success
    }

    /// Call from inside an intruder's body.
    func enter(_ who: String) {
        state.withLock { if $0.holding { $0.intrusions.append(who) } }
        intruderIn.signal()
    }

    /// The intruders that got in while the holder was inside.
    var intrusions: [String] { state.current.intrusions }
}
