import BoundedBuffer
import Dispatch
import Foundation
import KataTestSupport
import Testing

/// How one call into the buffer ended.
enum Outcome<Value: Sendable & Equatable>: Sendable, Equatable, CustomStringConvertible {
    case returned(Value)
    case threw(BufferError)
    case threwOther(String)

    init(_ body: () throws -> Value) {
        do {
            self = .returned(try body())
        } catch let error as BufferError {
            self = .threw(error)
        } catch {
            self = .threwOther(String(describing: error))
        }
    }

    var description: String {
        switch self {
        case .returned(let value): "returned \(value)"
        case .threw(let error): "threw .\(error)"
        case .threwOther(let error): "threw \(error) (not a BufferError)"
        }
    }
}

/// What `put` "returns", so that put and take outcomes read alike in messages.
struct Stored: Sendable, Equatable, CustomStringConvertible {
    var description: String { "normally" }
}

extension BoundedBuffer {
    /// `put` as an outcome.
    func putOutcome(_ element: Element, timeout: Double? = nil) -> Outcome<Stored> {
        Outcome { try put(element, timeout: timeout); return Stored() }
    }
}

extension BoundedBuffer where Element: Equatable {
    /// `take` as an outcome.
    func takeOutcome(timeout: Double? = nil) -> Outcome<Element> {
        Outcome { try take(timeout: timeout) }
    }
}

/// Seconds on a monotonic clock.
func monotonicSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}

/// One call into the learner's code on its own dedicated thread, watched from the check with
/// deadlines: a call that blocks for ever becomes a failed check, never a hung run, and no
/// cooperative-pool thread is parked in it.
final class WatchedCall<Value: Sendable & Equatable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let state = Locked<(outcome: Outcome<Value>?, started: Double?, seconds: Double?)>((nil, nil, nil))

    /// Starts `body` on a new thread at once.
    init(_ body: @escaping @Sendable () -> Outcome<Value>) {
        let thread = Thread { [state, done] in
            let start = monotonicSeconds()
            state.withLock { $0.started = start }
            let outcome = body()
            let seconds = monotonicSeconds() - start
            state.withLock { $0 = (outcome, start, seconds) }
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// The outcome, if the call has returned.
    var outcome: Outcome<Value>? { state.current.outcome }

    /// How long the call took, once it has returned.
    var seconds: Double? { state.current.seconds }

    /// True once the thread is about to call, or is inside, the code under test.
    var hasStarted: Bool { state.current.started != nil }

    /// The outcome if the call returns within `seconds`, else nil (nothing is recorded).
    func outcome(within seconds: Double) -> Outcome<Value>? {
        if let outcome { return outcome }
        if done.wait(timeout: .now() + seconds) == .success {
            done.signal()  // keep it signalled for later looks
        }
        return outcome
    }

    /// The outcome, waiting at most `seconds`; on a miss records "deadlock suspected in <place>".
    func outcome(
        seconds: Double = Deadline.promptSeconds, in place: String, waitingFor what: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Outcome<Value>? {
        if let outcome = outcome(within: seconds) { return outcome }
        DeadlockReport.record(in: place, waitingFor: what, seconds: seconds, hint: hint, sourceLocation: sourceLocation)
        return nil
    }
}

/// Waits until `calls` have all started their call, then a little longer, so that a correct
/// implementation has had the time to go to sleep inside it. The pause only makes the check
/// sharper: a call that starts late still sees the same state and must behave the same.
func letThemBlock<V>(_ calls: [WatchedCall<V>], settle: Double = 0.15) {
    let end = monotonicSeconds() + Deadline.promptSeconds
    while !calls.allSatisfy(\.hasStarted) && monotonicSeconds() < end { usleep(1_000) }
    usleep(UInt32(settle * 1_000_000))
}

/// A sequence of calls on one buffer, run on one dedicated thread and watched from the check with
/// a deadline: a step that blocks for ever (a `wait()` that ignores the timeout) is reported by
/// name, and the problems the steps found are recorded when the script is done.
final class Script: @unchecked Sendable {
    private let state = Locked<(step: String, hint: String?, problems: [String])>(("starting", nil, []))

    /// Names the call about to be made, and what to suspect if it never returns.
    func step(_ name: String, ifStuck hint: String? = nil) {
        state.withLock { $0.step = name; $0.hint = hint }
    }

    /// Notes a problem unless `ok`; returns `ok`, so a script can stop at the first wrong answer
    /// that makes the next steps meaningless.
    @discardableResult
    func expect(_ ok: Bool, _ message: @autoclosure () -> String) -> Bool {
        if !ok {
            let text = message()
            state.withLock { $0.problems.append(text) }
        }
        return ok
    }

    /// Runs `body` on a dedicated thread; waits at most `seconds` for it, then records what it found.
    static func run(
        in place: String, seconds: Double = Deadline.promptSeconds, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: @escaping @Sendable (Script) -> Void
    ) {
        let script = Script()
        let done = ThreadGang.spawn { body(script) }
        let finished = done.wait(timeout: .now() + seconds) == .success
        let seen = script.state.current
        for problem in seen.problems.prefix(3) {
            Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
        }
        if !finished {
            DeadlockReport.record(
                in: place, waitingFor: "\(seen.step) returning", seconds: seconds, hint: seen.hint,
                sourceLocation: sourceLocation)
        }
    }
}

/// The CPU time the calling thread has used so far, in seconds.
func threadCPUSeconds() -> Double {
    // POSIX: in Glibc on Linux, and in Darwin on Apple platforms (macOS 10.12 and later).
    var time = timespec()
    guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return 0 }
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
