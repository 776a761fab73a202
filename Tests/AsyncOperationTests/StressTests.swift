import AsyncOperation
import Foundation
import KataTestSupport
import Testing

/// Everything at once: random dependencies, random cancels, finishing from random threads,
/// in a queue that runs a few at a time. Isolated so that a crash is a failed check.
@Suite("Stress", .exitIsAFailure)
struct StressTests {
    static let count = 1_000

    @Test("1,000 operations with random dependencies, cancels and finishing threads all finish, each main() at most once and never before its dependencies")
    func randomGraphsFinish() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: 20, in: "1,000 operations in a queue")
            StressTests.runRandomGraph()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "1,000 operations in a queue",
            crashHint: "A crash here usually means the state was read and written by several threads without the lock, or an operation finished twice.")
    }

    struct Record {
        var mainRuns = [Int](repeating: 0, count: StressTests.count)
        var startedEarly: [Int] = []
        /// For the first operation that started early: what its unfinished dependency showed then.
        var firstEarly: (state: AsyncOperation.State, finishCalled: Bool)?
    }

    static func runRandomGraph() {
        let record = Locked(Record())
        let finishers = [DispatchQueue(label: "finisher-a", attributes: .concurrent), DispatchQueue(label: "finisher-b", attributes: .concurrent)]
        var built: [RecordingOperation] = []
        for index in 0..<count {
            let operation = RecordingOperation { operation in
                let lagging = operation.dependencies.first { !$0.isFinished } as? RecordingOperation
                let seen = lagging.map { (state: $0.state, finishCalled: $0.finishCalls.current > 0) }
                record.withLock {
                    $0.mainRuns[index] += 1
                    if lagging != nil { $0.startedEarly.append(index) }
                    if $0.firstEarly == nil, let seen { $0.firstEarly = seen }
                }
                switch index % 4 {
                case 0: operation.finishAndRecord()  // at once, on the queue's thread
                case 1: finishers[0].async { operation.finishAndRecord() }
                case 2: finishers[1].asyncAfter(deadline: .now() + .microseconds(Int.random(in: 0...500))) { operation.finishAndRecord() }
                default: Thread { operation.finishAndRecord() }.start()
                }
            }
            for _ in 0..<Int.random(in: 0...2) where index > 0 {
                operation.addDependency(built[Int.random(in: max(0, index - 50)..<index)])
            }
            built.append(operation)
        }
        let operations = built
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        queue.addOperations(operations, waitUntilFinished: false)

        let cancelled = Locked(Set<Int>())
        let canceller = ThreadGang.spawn {
            for _ in 0..<100 {
                let index = Int.random(in: 0..<count)
                cancelled.withLock { _ = $0.insert(index) }
                operations[index].cancel()
                usleep(UInt32.random(in: 0...300))
            }
        }
        // Hopeless once one operation shows that the queue can never drain: start() or finish()
        // returned and left it stuck, or it finished without announcing it. Looking at every
        // operation takes a while, so the rules are read every 10 ms.
        let hopeless = { firstReason(operations) { $0.settledHopeless } }
        guard Hopeless.waitUntilBlocking(pollSeconds: 0.01, in: "1,000 operations in a queue", waitingFor: "the first operation running",
                                 { record.current.mainRuns.contains { $0 > 0 } }, unless: hopeless) else { return }
        Deadline.wait(for: canceller, seconds: 10, in: "cancelling operations", waitingFor: "100 cancels")
        // The deadline counts from the last operation that finished: a queue that keeps moving is not stuck.
        Hopeless.waitUntilBlocking(seconds: Deadline.promptSeconds, limit: 15, pollSeconds: 0.01, in: "1,000 operations in a queue", waitingFor: "every operation finishing",
                           hint: "Every path must end in finish(): a cancelled operation finishes in start(), and finish() announces isFinished after the change.",
                           progress: { operations.filter(\.isFinished).count }, { operations.allSatisfy(\.isFinished) }, unless: hopeless)
        let seen = record.current
        let cancels = cancelled.current
        let unfinished = operations.indices.filter { !operations[$0].isFinished }
        let missing = operations.indices.filter { !cancels.contains($0) && seen.mainRuns[$0] != 1 }
        let repeated = seen.mainRuns.indices.filter { seen.mainRuns[$0] > 1 }
        #expect(unfinished.isEmpty, "\(unfinished.count) of \(count) operations never finished (first: #\(unfinished.first ?? 0)).")
        #expect(missing.isEmpty, "\(missing.count) operations that were never cancelled did not run main() exactly once (first: #\(missing.first ?? 0), ran \(missing.first.map { seen.mainRuns[$0] } ?? 0) times).")
        #expect(repeated.isEmpty, "main() ran more than once for \(repeated.count) operations: start() must run the work once, even when start() and cancel() race.")
        #expect(seen.startedEarly.isEmpty, Comment(rawValue: startedEarlyMessage(seen)))
    }

    /// What the check saw when an operation's main() ran while a dependency was not finished, and
    /// the causes that fit it: a message names a cause only when the check observed it.
    static func startedEarlyMessage(_ seen: Record) -> String {
        let head = "\(seen.startedEarly.count) operations started while one of their dependencies was not finished (first: #\(seen.startedEarly.first ?? 0))"
        guard let dependency = seen.firstEarly else { return head + "." }
        if dependency.finishCalled {
            return head + ". finish() had already been called on that dependency, yet when its dependent began it read isFinished false, in state .\(dependency.state.rawValue). Likely causes: its state went back after finish() (start() sets .executing after calling main(), overwriting a .finished that main() reached at once), or finish() announced isFinished before the state changed. Most often the first: start() sets .executing after calling main(), overwriting a .finished that main() reached at once. enter .executing before main(), and never leave .finished."
        }
        return head + ". That dependency's finish() had not been called yet (state .\(dependency.state.rawValue)). Likely causes: isReady ignores the dependencies (combine super.isReady with your state), or the dependency announced isFinished before it was finished."
    }
}
