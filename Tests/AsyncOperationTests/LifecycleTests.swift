import AsyncOperation
import Foundation
import KataTestSupport
import Testing

/// The state machine's edges: finishing at once, cancelling before and during the work,
/// finishing twice, and starting by hand.
@Suite("Lifecycle", .exitIsAFailure)
struct LifecycleTests {
    @Test("main() that calls finish() at once leaves the operation .finished")
    func immediateFinishEndsFinished() {
        let operation = AsyncBlockOperation { $0.finish() }
        guard ThreadGang.run(1, seconds: Deadline.promptSeconds, in: "start() of an operation that finishes at once", { _ in operation.start() }) else { return }
        #expect(operation.state == .finished && operation.isFinished && !operation.isExecuting,
                "main() called finish() at once, yet after start() the state is .\(operation.state.rawValue) (isFinished \(operation.isFinished), isExecuting \(operation.isExecuting)). Enter .executing before calling main(), never after: otherwise start() overwrites .finished with .executing.")
    }

    @Test("Cancelled before start: main() never runs, the operation finishes with its notifications, its dependents run")
    func cancelledBeforeStart() {
        let operation = RecordingOperation()
        let dependentRan = DispatchSemaphore(value: 0)
        let dependent = BlockOperation { dependentRan.signal() }
        dependent.addDependency(operation)
        let queue = OperationQueue()
        queue.isSuspended = true
        queue.addOperations([operation, dependent], waitUntilFinished: false)
        operation.cancel()
        queue.isSuspended = false
        let ran = Deadline.wait(for: dependentRan, seconds: Deadline.promptSeconds, in: "a queue holding a cancelled AsyncOperation", waitingFor: "its dependent running",
                                hint: "The queue still calls start() on a cancelled operation: start() must see isCancelled and finish().")
        #expect(operation.mainRuns.current == 0, "main() ran although the operation was cancelled before it started: start() must check isCancelled first and finish instead.")
        guard ran else { return }
        #expect(operation.isFinished, "The cancelled operation should be finished once the queue started it.")
        if RecordingOperation.notificationsAreObservable,
           let problem = announcementProblem(operation.notifications, key: "isFinished", before: false, after: true, when: "Finishing a cancelled operation") {
            Issue.record(Comment(rawValue: problem))
        }
    }

    @Test("Cancelled while running: isCancelled is true, the work sees it, and the operation stays executing until finish()")
    func cancelledWhileRunning() {
        let running = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let sawCancel = Locked<Bool?>(nil)
        let operation = AsyncBlockOperation { operation in
            running.signal()
            // The work goes on on a thread of its own, as real asynchronous work does.
            Thread {
                _ = proceed.wait(timeout: .now() + 5)
                sawCancel.withLock { $0 = operation.isCancelled }
                operation.finish()
            }.start()
        }
        let dependentRan = Locked(false)
        let dependent = BlockOperation { dependentRan.withLock { $0 = true } }
        dependent.addDependency(operation)
        let queue = OperationQueue()
        queue.addOperations([operation, dependent], waitUntilFinished: false)
        guard Deadline.wait(for: running, seconds: Deadline.promptSeconds, in: "an AsyncBlockOperation in a queue", waitingFor: "its work running",
                            hint: "start() should call main(), and AsyncBlockOperation.main() should run the work.") else { return }

        operation.cancel()
        #expect(operation.isCancelled, "isCancelled should be true after cancel().")
        #expect(operation.state == .executing && !operation.isFinished,
                "After cancel() the work is still running, so the operation must stay .executing; it is .\(operation.state.rawValue). cancel() must not finish it: the work sees isCancelled and calls finish() itself.")
        #expect(!dependentRan.current, "The dependent ran while the cancelled operation's work was still running.")
        proceed.signal()
        Deadline.waitUntil(seconds: Deadline.promptSeconds, in: "a cancelled operation whose work called finish()", waitingFor: "isFinished") { operation.isFinished }
        #expect(sawCancel.current == true, "The running work should see isCancelled == true after cancel().")
    }

    @Test("finish() called twice, or from several threads at once, makes one transition with one pair of notifications")
    func finishIsIdempotent() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "finish() from several threads")
            LifecycleTests.finishFromManyThreads()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "finish() from several threads",
            crashHint: "A crash here usually means the state was changed by two threads at once: decide under the lock which single call of finish() makes the transition.")
    }

    static func finishFromManyThreads() {
        let completions = Locked(0)
        let operations = (0..<100).map { _ in RecordingOperation() }
        for operation in operations {
            operation.completionBlock = { completions.withLock { $0 += 1 } }
            operation.start()
        }
        let threads = 4
        let together = StartBarrier(parties: threads)
        ThreadGang.run(threads, in: "finish() from several threads") { _ in
            for operation in operations {
                guard together.arrive() else { return }
                operation.finish()
            }
        }
        for operation in operations { operation.finish() }  // and once more, late
        var problems: [String] = []
        for operation in operations {
            let finishes = operation.notifications.filter { $0.key == "isFinished" }
            if RecordingOperation.notificationsAreObservable && finishes.count != 2 {
                problems.append("\(finishes.count) isFinished notifications")
            }
            if operation.state != .finished { problems.append("state .\(operation.state.rawValue)") }
        }
        if problems.isEmpty {
            Deadline.waitUntil(seconds: Deadline.promptSeconds, in: "finish() from several threads", waitingFor: "100 completion blocks") { completions.current >= 100 }
            usleep(50_000)  // a duplicate completion would arrive by now
            if completions.current != 100 { problems.append("\(completions.current) completion blocks for 100 operations") }
        }
        #expect(problems.isEmpty, "After finish() was called 5 times (4 of them at once) on each of 100 started operations: \(problems.count) problems, first: \(problems.first ?? ""). Only the first call may change the state and send one will/did pair; later calls must do nothing.")
    }

    @Test("start() called by hand, without a queue, runs the work; finish() from another thread ends it and fires completionBlock")
    func manualStartWithoutQueue() {
        let completed = DispatchSemaphore(value: 0)
        let workRan = DispatchSemaphore(value: 0)
        let finisher = DispatchQueue(label: "finisher")
        let operation = AsyncBlockOperation { operation in
            workRan.signal()
            finisher.asyncAfter(deadline: .now() + 0.01) { operation.finish() }
        }
        operation.completionBlock = { completed.signal() }
        #expect(operation.isAsynchronous, "isAsynchronous should be true: the operation returns from start() before its work is done.")
        #expect(operation.isReady && operation.state == .ready, "A new operation without dependencies should be ready.")
        guard ThreadGang.run(1, seconds: Deadline.promptSeconds, in: "start() called by hand", { _ in operation.start() }) else { return }
        guard Deadline.wait(for: workRan, seconds: Deadline.promptSeconds, in: "an operation started by hand", waitingFor: "its work running",
                            hint: "start() should call main(), and AsyncBlockOperation.main() should run the work.") else { return }
        Deadline.wait(for: completed, seconds: Deadline.promptSeconds, in: "an operation started by hand", waitingFor: "completionBlock running after finish()",
                      hint: "completionBlock runs when the operation announces isFinished (didChangeValue(forKey: \"isFinished\") after the change).")
        #expect(operation.state == .finished, "After finish() the state should be .finished; it is .\(operation.state.rawValue).")
    }

    @Test("isReady respects dependencies: not ready while a dependency is unfinished")
    func readyRespectsDependencies() {
        let first = AsyncBlockOperation { _ in }
        let second = AsyncBlockOperation { $0.finish() }
        second.addDependency(first)
        #expect(!second.isReady, "An operation whose dependency has not finished must not be ready: combine super.isReady (the dependencies) with your own state.")
        guard ThreadGang.run(1, seconds: Deadline.promptSeconds, in: "start() of the dependency", { _ in first.start() }) else { return }
        first.finish()
        #expect(second.isReady, "Once its dependency finished, the operation should be ready: super.isReady turns true when the dependency announces isFinished.")
    }
}
