import AsyncBridge
import Foundation
import KataTestSupport
import Testing

/// `fetch(_:using:)`: one callback API bridged with a continuation that is resumed exactly once.
/// Every check is isolated: a continuation resumed twice traps, and one never resumed must not
/// keep the suite waiting.
@Suite("fetch(_:using:)", .exitIsAFailure)
struct FetchTests {
    @Test("A value and an error pass through, whether the client calls back later on another thread or at once on the caller's")
    func valuesAndErrorsPassThrough() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "fetch with a client that answers")
            await FetchTests.passThrough()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "fetch with a client that answers",
                              crashHint: "A trap here usually means the continuation was resumed twice, or a lock was taken twice when the client called back before fetch returned.")
    }

    static func passThrough() async {
        let cases: [(key: String, plan: Plan, expected: Result<Data, FakeError>, how: String)] = [
            ("later", .soon(.success(payload("later")), delay: 0.01), .success(payload("later")), "later, on another thread"),
            ("atOnce", .now(.success(payload("atOnce"))), .success(payload("atOnce")), "at once, before client.fetch returned"),
            ("failing", .soon(.failure(FakeError(id: "failing"))), .failure(FakeError(id: "failing")), "with an error, on another thread"),
            ("failingAtOnce", .now(.failure(FakeError(id: "failingAtOnce"))), .failure(FakeError(id: "failingAtOnce")), "with an error, at once"),
        ]
        for item in cases {
            let plan = item.plan
            let client = FakeClient { _, _ in plan }
            let task = Tracked { [key = item.key as String] in try await fetch(key, using: client) }
            let outcome = await Awaiting.outcome(of: task, within: Deadline.promptSeconds)
            switch (outcome, item.expected) {
            case (.returned(let data), .success(let expected)) where data == expected:
                continue
            case (.threw(let error as FakeError), .failure(let expected)) where error == expected:
                continue
            case (.stillRunning, _):
                Issue.record("fetch(\"\(item.key)\") never returned although the client called back \(item.how): resume the continuation from the completion handler (continuation.resume(with: result)).")
            default:
                let expected = switch item.expected {
                case .success(let data): "return \(describe(data))"
                case .failure(let error): "throw the client's own error, \(error)"
                }
                Issue.record("With a client that calls back \(item.how), fetch(\"\(item.key)\") \(outcome.summary); it should \(expected). The result passes through unchanged.")
            }
            if client.fetchCount != 1 {
                Issue.record("fetch(\"\(item.key)\") called client.fetch \(client.fetchCount) times; expected once.")
            }
        }
    }

    @Test("A client that calls back twice, from two threads at the same moment, gives one result and no crash")
    func doubleCallbackResumesOnce() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "fetch with a client that calls back twice")
            await FetchTests.twice()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "fetch with a client that calls back twice",
                              crashHint: "Resuming a continuation twice traps (\"SWIFT TASK CONTINUATION MISUSE\"): guard it so that only the first callback resumes it, under a lock, since both callbacks can come at the same moment.")
    }

    static let doubleCallbackRounds = 100

    static func twice() async {
        for round in 0..<doubleCallbackRounds {
            let key = "twice\(round)"
            let client = FakeClient { key, _ in .twice(.success(payload(key)), .failure(FakeError(id: key))) }
            let task = Tracked { try await fetch(key, using: client) }
            let outcome = await Awaiting.outcome(of: task, within: Deadline.promptSeconds)
            switch outcome {
            case .returned(let data) where data == payload(key):
                break
            case .threw(let error as FakeError) where error.id == key:
                break
            default:
                Issue.record("In round \(round + 1), with a client that called back twice (a value and an error, from two threads at once), fetch \(outcome.summary); it should end with whichever callback came first.")
                return
            }
            // Both callbacks have been made before the next round: a late second resume traps here.
            guard await Awaiting.until(in: "a client calling back twice", waitingFor: "both callbacks returning", { client.answerCount == 2 }) else { return }
        }
    }

    @Test("A client that never calls back: cancelling the task ends fetch at once with CancellationError, cancels the request, and a late answer changes nothing")
    func cancellationEndsPromptly() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "fetch cancelled while the client is silent")
            await FetchTests.cancelSilent()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "fetch cancelled while the client is silent",
                              crashHint: "A trap after the late answer means the continuation was resumed twice: once by the cancellation, again by the late callback. Let only the first of them resume it.")
    }

    /// What a correct fetch needs to react to a cancellation: milliseconds. Far above that.
    static let cancelPatience: Double = 2

    static func cancelSilent() async {
        let client = FakeClient { _, _ in .never }
        let task = Tracked { try await fetch("silent", using: client) }
        guard await Awaiting.until(in: "fetch with a silent client", waitingFor: "client.fetch being called",
                                   unless: { client.fetchCount == 0 && task.isFinished ? "fetch ended without calling client.fetch: call it, and suspend until its completion handler resumes you." : nil },
                                   { client.fetchCount >= 1 }) else { return }
        task.cancel()
        let outcome = await Awaiting.outcome(of: task, within: cancelPatience)
        if !outcome.ended {
            Issue.record("After the task was cancelled, fetch kept waiting for a client that never calls back (still running after \(Int(cancelPatience)) s). Wrap the continuation in withTaskCancellationHandler and, on cancel, resume with CancellationError and cancel the request.")
        } else if !outcome.isCancellationError {
            Issue.record("fetch, cancelled while the client was silent, \(outcome.summary); it should throw CancellationError.")
        }
        #expect(client.cancelCount == 1, "request.cancel() was called \(client.cancelCount) times after the task was cancelled; expected once: the cancellation handler must reach the request, so the client stops working for nobody.")
        // The late answer: a fetch that resumes again here traps.
        client.releaseLate(with: .success(payload("silent")))
        if !outcome.ended {
            let late = await Awaiting.outcome(of: task, within: Deadline.promptSeconds)
            Issue.record("fetch ended only when the late answer came (it \(late.summary)): the cancellation never reached it.")
        }
    }

    @Test("A task cancelled before fetch starts ends with CancellationError at once")
    func alreadyCancelled() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "fetch in a task that is already cancelled")
            await FetchTests.alreadyCancelledBody()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "fetch in a task that is already cancelled",
                              crashHint: "A trap here usually means the continuation was resumed twice.")
    }

    static func alreadyCancelledBody() async {
        let client = FakeClient { _, _ in .never }
        let task = Tracked {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await fetch("cancelled early", using: client)
        }
        let outcome = await Awaiting.outcome(of: task, within: cancelPatience)
        if !outcome.ended {
            Issue.record("In a task that was already cancelled, fetch kept waiting for a client that never calls back. withTaskCancellationHandler runs onCancel at once in that case, before your continuation or request exists: remember the cancellation, and resume with CancellationError (and cancel the request) as soon as they do.")
        } else if !outcome.isCancellationError {
            Issue.record("fetch in an already cancelled task \(outcome.summary); it should throw CancellationError.")
        }
        #expect(client.fetchCount == client.cancelCount, "client.fetch was called \(client.fetchCount) times and request.cancel() \(client.cancelCount) times in an already cancelled task: a request started anyway must be cancelled.")
        client.releaseLate(with: .success(payload("cancelled early")))
    }

    @Test("Waiting holds no thread: of 16 fetches per core, at least 4 per core wait for their callbacks at the same time (64 at most of either)")
    func manyFetchesWaitTogether() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "many fetches at once")
            await FetchTests.manyAtOnce()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "many fetches at once", crashHint: "A trap here usually means a continuation was resumed twice.")
    }

    static var manyCount: Int { min(64, 16 * max(1, ProcessInfo.processInfo.activeProcessorCount)) }
    /// A correct fetch has every call waiting within milliseconds; this is the patience before
    /// concluding that each waiting call holds a thread (generous: once, on a machine with a load
    /// average of 60, a whole test process stalled for more than a second).
    static let togetherPatience: Double = Deadline.promptSeconds
    /// A fetch that blocks its thread while it waits can never have more calls waiting than the
    /// cooperative pool has threads (one per core). Four times that many is proof enough that
    /// waiting holds no thread, also on a machine so loaded that not every call got in in time.
    static var enoughToProve: Int { min(manyCount, 4 * max(1, ProcessInfo.processInfo.activeProcessorCount)) }

    static func manyAtOnce() async {
        let count = manyCount
        let client = FakeClient { _, _ in .hold }
        let ended = Locked(0)
        let tasks = (0..<count).map { index in
            Tracked {
                defer { ended.withLock { $0 += 1 } }
                return try await fetch("key\(index)", using: client)
            }
        }
        // From a dedicated thread: a fetch that blocks its thread may hold every cooperative one.
        let peak = Locked(0)
        await Awaiting.onDedicatedThread(seconds: togetherPatience, until: {
            // One reading decides both: read twice, the count can pass the bar between the two,
            // and the check would stop with a peak it never recorded.
            let held = client.heldCount
            peak.withLock { $0 = max($0, held) }
            return held >= enoughToProve || ended.current == count
        }, then: { _ in
            // Every held fetch, and in the same step every fetch that comes later: a fetch that
            // decided to hold just before this release must not be left to the safety net.
            client.releaseAll(andLater: true) { key in .success(payload(key)) }
        })
        var wrong = 0
        for (index, task) in tasks.enumerated() {
            let outcome = await Awaiting.outcome(of: task, within: Deadline.promptSeconds)
            if case .returned(let data) = outcome, data == payload("key\(index)") { continue }
            if wrong == 0 {
                Issue.record("fetch(\"key\(index)\") \(outcome.summary) after the client answered it.")
            }
            wrong += 1
        }
        if ended.current == count && peak.current == 0 {
            Issue.record("All \(count) fetches ended without waiting for the client: none of them was waiting for its callback.")
        } else if peak.current < count && peak.current < enoughToProve {
            Issue.record("Only \(peak.current) of \(count) fetches were waiting for their callbacks at the same time (\(ProcessInfo.processInfo.activeProcessorCount) cores). Each waiting fetch held a thread: a semaphore or other blocking wait inside an async function parks one of the few cooperative threads, and the rest wait in line. Suspend with a continuation instead.")
        }
    }
}
