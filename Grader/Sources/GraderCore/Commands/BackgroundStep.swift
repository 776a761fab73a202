import Foundation

/// A step of `grader verify` run on a thread of its own, started when the steps in the
/// foreground leave a core idle (a run whose children mostly wait), and joined where its line
/// is printed. Started at the latest when it is waited for.
final class BackgroundStep<Value: Sendable>: @unchecked Sendable {
    private let body: @Sendable () throws -> Value
    private let done = DispatchGroup()
    private let lock = NSLock()
    private var started = false
    private var outcome: (result: Result<Value, any Error>, seconds: Double)?

    init(_ body: @escaping @Sendable () throws -> Value) {
        self.body = body
    }

    func start() {
        lock.lock()
        defer { lock.unlock() }
        guard !started else { return }
        started = true
        done.enter()
        Thread.detachNewThread { [self] in
            let begin = Date()
            let result = Result { try body() }
            lock.lock()
            outcome = (result, Date().timeIntervalSince(begin))
            lock.unlock()
            done.leave()
        }
    }

    /// Its value and its own time ("26.2"), once it has ended; rethrows what it threw.
    func wait() throws -> (value: Value, seconds: String) {
        start()
        done.wait()
        lock.lock()
        defer { lock.unlock() }
        guard let outcome else { throw GraderError.cannotRun("a background step ended without a result") }
        return (try outcome.result.get(), String(format: "%.1f", outcome.seconds))
    }
}
