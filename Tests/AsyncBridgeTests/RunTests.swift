import AsyncBridge
import Foundation
import KataTestSupport
import Testing

/// `OperationQueue.run(_:)`: an Operation awaited without blocking a thread.
@Suite("OperationQueue.run(_:)", .exitIsAFailure)
struct RunTests {
    @Test("run returns once the operation has finished: an asynchronous one that finishes later on another thread, and one that finishes at once")
    func runReturnsAfterFinish() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "OperationQueue.run")
            await RunTests.returnsAfterFinish()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "OperationQueue.run", crashHint: "A trap here usually means a continuation was resumed twice.")
    }

    static func returnsAfterFinish() async {
        let queue = OperationQueue()
        // An asynchronous operation: it finishes when released, well after it started.
        let held = HeldOperation()
        let returnedEarly = Locked(false)
        let task = Tracked {
            try await queue.run(held)
            returnedEarly.withLock { $0 = !held.isFinished }
        }
        let started = await Awaiting.until(in: "run with an asynchronous operation", waitingFor: "the operation starting",
                                           unless: { task.isFinished ? "run ended before the operation started: add it to the queue, and suspend until it has finished." : nil }) { held.started }
        if started {
            try? await Task.sleep(nanoseconds: 20_000_000)
            held.release()
        }
        let outcome = await Awaiting.outcome(of: task, within: Deadline.promptSeconds)
        if started {
            switch outcome {
            case .returned:
                #expect(!returnedEarly.current, "run returned before the asynchronous operation had finished (isFinished was false): an operation's start() or main() returning does not mean it is finished. Resume when isFinished becomes true, e.g. from an operation that depends on it.")
            case .threw, .stillRunning:
                Issue.record("run(asynchronous operation) \(outcome.summary) after the operation finished; it should return.")
            }
        } else {
            held.cancel()
        }

        // A synchronous operation that is finished as soon as it starts, with a completion block of
        // its own, on a queue that has run it to its end (completion block included) before
        // addOperation returns: anything run sets up after adding it comes too late.
        let completionRan = Locked(false)
        let completionDone = DispatchSemaphore(value: 0)
        let quick = BlockOperation {}
        quick.completionBlock = {
            completionRan.withLock { $0 = true }
            completionDone.signal()
        }
        let finishing = FinishingQueue()
        finishing.finishBeforeReturning(quick, signalledBy: completionDone)
        let quickTask = Tracked { () -> Bool in
            try await finishing.run(quick)
            return quick.isFinished
        }
        // The operation and its completion block are over when addOperation returns: a right run
        // resumes within milliseconds. Two seconds, as for a cancellation.
        let quickOutcome = await Awaiting.outcome(of: quickTask, within: FetchTests.cancelPatience)
        switch quickOutcome {
        case .returned(true):
            break
        case .returned(false):
            Issue.record("run returned before a BlockOperation had finished.")
        case .stillRunning:
            Issue.record("run never returned for an operation that finishes at once. The queue had run it to its end, completion block included, before addOperation returned (a real queue may: another core picks it up at once), so a hook set up after addOperation (a completionBlock assigned afterwards) never fires. Set up the waiting before adding the operation, e.g. an operation that depends on it.")
        case .threw:
            Issue.record("run(BlockOperation) \(quickOutcome.summary); it should return.")
        }
        if case .returned(true) = quickOutcome {
            await Awaiting.until(in: "run with a BlockOperation", waitingFor: "the operation's own completionBlock running",
                                 hint: "completionBlock belongs to the caller: run must not replace it (wait with a dependent operation instead, or call the old block too).") { completionRan.current }
        }
    }

    @Test("Cancelling the task cancels the operation, then throws CancellationError only once the operation has finished")
    func runCancellation() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "OperationQueue.run cancelled")
            await RunTests.cancellation()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "OperationQueue.run cancelled", crashHint: "A trap here usually means a continuation was resumed twice.")
    }

    static func cancellation() async {
        let queue = OperationQueue()
        // It takes 100 ms to wind down after cancel(), as real work does.
        let held = HeldOperation(finishDelayAfterCancel: 0.1)
        let finishedWhenRunEnded = Locked<Bool?>(nil)
        let task = Tracked {
            defer { finishedWhenRunEnded.withLock { $0 = held.isFinished } }
            try await queue.run(held)
        }
        guard await Awaiting.until(in: "run with an asynchronous operation", waitingFor: "the operation starting",
                                   unless: { task.isFinished ? "run ended before the operation started: add it to the queue, and suspend until it has finished." : nil },
                                   { held.started }) else { return held.cancel() }
        task.cancel()
        let outcome = await Awaiting.outcome(of: task, within: 2)
        #expect(held.isCancelled, "Cancelling the task did not cancel the operation: call operation.cancel() from withTaskCancellationHandler's onCancel.")
        switch outcome {
        case .stillRunning:
            Issue.record("After the task was cancelled, run was still waiting 2 s later: the operation winds down only once it is cancelled. Cancel it from withTaskCancellationHandler's onCancel.")
            held.cancel()
        case .returned:
            Issue.record("run returned normally although its task was cancelled; once the operation has finished it should throw CancellationError.")
        case .threw(let error):
            #expect(error is CancellationError, "run, cancelled, threw \(type(of: error)); it should throw CancellationError.")
        }
        if outcome.ended {
            #expect(finishedWhenRunEnded.current == true, "run ended when the task was cancelled, before the operation had finished winding down (it takes 100 ms after cancel()). Cancel the operation, keep waiting until it has finished, and only then throw: the caller may rely on its work being over.")
        }
    }

    @Test("Dependencies still hold: run waits for the operation, which waits for what it depends on")
    func runKeepsDependencies() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "OperationQueue.run with a dependency")
            await RunTests.dependencies()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "OperationQueue.run with a dependency", crashHint: "Starting an operation that is not ready can raise an exception: let the queue start it.")
    }

    static func dependencies() async {
        let queue = OperationQueue()
        let first = HeldOperation()
        let second = RecordingBlock()
        second.addDependency(first)
        queue.addOperation(first)
        let task = Tracked { () -> Bool in
            try await queue.run(second)
            return second.isFinished
        }
        guard await Awaiting.until(in: "a dependency", waitingFor: "the first operation starting", { first.started }) else { return }
        try? await Task.sleep(nanoseconds: 30_000_000)
        #expect(!second.ran, "The operation passed to run ran while the operation it depends on was still executing: add it to the queue, which starts it when it is ready; do not start it yourself.")
        first.release()
        let outcome = await Awaiting.outcome(of: task, within: Deadline.promptSeconds)
        switch outcome {
        case .returned(let finished):
            #expect(finished, "run returned before the operation had finished (it was still waiting for its dependency): suspend until the operation itself has finished.")
            #expect(second.ran && second.dependenciesWereFinished, "run returned, but the operation ran: \(second.ran), after its dependency had finished: \(second.dependenciesWereFinished).")
        default:
            Issue.record("run with a dependency \(outcome.summary) after both operations finished; it should return.")
        }
        #expect(second.dependencies.count == 1, "run changed the operation's dependencies (now \(second.dependencies.count)); leave them to the caller.")
    }

    @Test("Waiting holds no thread: of 16 runs per core, at least 4 per core wait for their operations at the same time (64 at most of either)")
    func manyRunsWaitTogether() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "many runs at once")
            await RunTests.manyAtOnce()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "many runs at once", crashHint: "A trap here usually means a continuation was resumed twice.")
    }

    static func manyAtOnce() async {
        let count = FetchTests.manyCount
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = count
        let meter = ConcurrencyMeter()
        let autoFinish = Locked(false)
        let operations = (0..<count).map { _ in HeldOperation(meter: meter, autoFinish: autoFinish) }
        let ended = Locked(0)
        let tasks = operations.map { operation in
            Tracked {
                defer { ended.withLock { $0 += 1 } }
                try await queue.run(operation)
            }
        }
        await Awaiting.onDedicatedThread(seconds: FetchTests.togetherPatience, until: {
            meter.current >= FetchTests.enoughToProve || ended.current == count
        }, then: { _ in
            autoFinish.withLock { $0 = true }
            for operation in operations where operation.started { operation.release() }
        })
        let peak = meter.peak
        var wrong = 0
        for (index, task) in tasks.enumerated() {
            let outcome = await Awaiting.outcome(of: task, within: Deadline.promptSeconds)
            if case .returned = outcome { continue }
            if wrong == 0 { Issue.record("run of operation \(index) \(outcome.summary) after the operation finished.") }
            wrong += 1
        }
        if peak < FetchTests.enoughToProve && !(ended.current == count && peak == 0) {
            Issue.record("Only \(peak) of \(count) runs were waiting for their operations at the same time (\(ProcessInfo.processInfo.activeProcessorCount) cores). Each waiting run held a thread: waitUntilFinished() or a semaphore inside an async function parks one of the few cooperative threads, and the rest wait in line. Suspend with a continuation instead.")
        } else if peak == 0 {
            Issue.record("No operation was started by the \(count) runs.")
        }
    }
}
