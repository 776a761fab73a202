import Foundation
import KataTestSupport
import Testing

/// How a learner's async call ended, as far as a check could see within its deadline.
enum Outcome<T: Sendable>: Sendable {
    case returned(T)
    case threw(any Error)
    /// Still running when the deadline came: a continuation never resumed, or a wait that does not end.
    case stillRunning

    var isCancellationError: Bool {
        if case .threw(let error) = self { return error is CancellationError }
        return false
    }

    var ended: Bool {
        if case .stillRunning = self { return false }
        return true
    }

    /// "returned <value>", "threw <error>", "was still running".
    var summary: String {
        switch self {
        case .returned(let value): "returned \(describe(value))"
        case .threw(let error): "threw \(type(of: error)) (\(error))"
        case .stillRunning: "was still running"
        }
    }
}

/// Data shown as text when it is text.
func describe(_ value: Any) -> String {
    if let data = value as? Data { return String(data: data, encoding: .utf8).map { "\"\($0)\"" } ?? "\(data.count) bytes" }
    return "\(value)"
}

/// Awaits learner code with a deadline, without ever blocking a thread: the task's end and a
/// Dispatch timer race to resume one continuation, and the first one wins.
enum Awaiting {
    /// Waits at most `seconds` for `task` to end. A task still running is left running (the check
    /// decides whether to cancel it).
    static func outcome<T: Sendable>(of task: Task<T, any Error>, within seconds: Double) async -> Outcome<T> {
        let race = Race<Outcome<T>>()
        return await withCheckedContinuation { continuation in
            race.install(continuation)
            Task {
                switch await task.result {
                case .success(let value): race.finish(.returned(value))
                case .failure(let error): race.finish(.threw(error))
                }
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { race.finish(.stillRunning) }
        }
    }

    /// Polls `condition` every millisecond (sleeping, not blocking) until it holds. Gives up at once
    /// with the reason `hopeless` returns, or after `seconds` with "deadlock suspected".
    @discardableResult
    static func until(
        seconds: Double = Deadline.promptSeconds, in place: String, waitingFor what: String, hint: String? = nil,
        unless hopeless: () -> String? = { nil }, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: () -> Bool
    ) async -> Bool {
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while !condition() {
            if let reason = hopeless() {
                if condition() { return true }
                Issue.record(Comment(rawValue: reason), sourceLocation: sourceLocation)
                return false
            }
            if DispatchTime.now().uptimeNanoseconds >= end {
                DeadlockReport.record(in: place, waitingFor: what, seconds: seconds, hint: hint, sourceLocation: sourceLocation)
                return false
            }
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        return true
    }

    /// Waits on a dedicated thread (never on the cooperative pool) until `condition` holds or
    /// `seconds` pass, then runs `then` on that thread and resumes. For checks where the code under
    /// test may hold every cooperative thread: the thread that must release them cannot be one of them.
    static func onDedicatedThread(seconds: Double, until condition: @escaping @Sendable () -> Bool, then: @escaping @Sendable (_ held: Bool) -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                let end = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
                var held = condition()
                while !held && DispatchTime.now().uptimeNanoseconds < end {
                    usleep(1_000)
                    held = condition()
                }
                then(held)
                continuation.resume()
            }.start()
        }
    }
}

/// One continuation, resumed by whichever of several parties comes first.
private final class Race<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Never>?
    private var early: T?

    func install(_ continuation: CheckedContinuation<T, Never>) {
        lock.lock()
        if let early {
            lock.unlock()
            continuation.resume(returning: early)
            return
        }
        self.continuation = continuation
        lock.unlock()
    }

    func finish(_ value: T) {
        lock.lock()
        guard let continuation else {
            if early == nil { early = value }
            lock.unlock()
            return
        }
        self.continuation = nil
        early = value  // marks it taken
        lock.unlock()
        continuation.resume(returning: value)
    }
}

/// A task that also says whether it has ended (`Task` itself cannot), so that a check can see
/// at once that a call returned without doing what it waits for.
final class Tracked<T: Sendable>: Sendable {
    let task: Task<T, any Error>
    private let done: Locked<Bool>

    init(_ body: @escaping @Sendable () async throws -> T) {
        let done = Locked(false)
        self.done = done
        task = Task {
            defer { done.withLock { $0 = true } }
            return try await body()
        }
    }

    var isFinished: Bool { done.current }
    func cancel() { task.cancel() }
}

extension Awaiting {
    static func outcome<T: Sendable>(of tracked: Tracked<T>, within seconds: Double) async -> Outcome<T> {
        await outcome(of: tracked.task, within: seconds)
    }
}
