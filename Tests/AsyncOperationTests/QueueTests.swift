import AsyncOperation
import Foundation
import KataTestSupport
import Testing

/// The reason AsyncOperation exists: in a queue it counts as running until `finish()`, not
/// until `main()` returns. A plain synchronous Operation finishes when `main()` returns, so its
/// dependents start early and `maxConcurrentOperationCount` limits nothing.
@Suite("In an OperationQueue", .exitIsAFailure)
struct QueueTests {
    @Test("A dependent starts only after finish(), not when main() returns")
    func dependentWaitsForFinish() {
        let queue = OperationQueue()
        let mainReturned = DispatchSemaphore(value: 0)
        let dependentStarted = DispatchSemaphore(value: 0)
        let asyncWork = AsyncBlockOperation { _ in mainReturned.signal() }  // finishes later
        let dependent = BlockOperation { dependentStarted.signal() }
        dependent.addDependency(asyncWork)
        queue.addOperations([asyncWork, dependent], waitUntilFinished: false)

        guard Deadline.wait(for: mainReturned, seconds: Deadline.promptSeconds, in: "OperationQueue starting an AsyncBlockOperation",
                            waitingFor: "its work running", hint: "start() should call main(), and AsyncBlockOperation.main() should run the work.") else { return }
        #expect(dependentStarted.wait(timeout: .now() + 0.3) == .timedOut,
                "The dependent started although the operation had not called finish(): the queue thought it was finished when main() returned. Override isAsynchronous, isExecuting and isFinished, and do not call super.start().")
        asyncWork.finish()
        Deadline.wait(for: dependentStarted, seconds: 3, in: "the dependent of a finished AsyncOperation", waitingFor: "the dependent starting",
                      hint: "finish() must send didChangeValue(forKey: \"isFinished\") after the state became .finished.")
    }

    @Test("addOperations(_:waitUntilFinished: true) returns once every operation called finish()")
    func waitUntilFinishedReturns() {
        let finisher = DispatchQueue(label: "finisher", attributes: .concurrent)
        let started = DispatchGroup()
        let operations = (0..<4).map { _ in
            started.enter()
            return AsyncBlockOperation { operation in
                started.leave()
                finisher.asyncAfter(deadline: .now() + 0.05) { operation.finish() }
            }
        }
        let queue = OperationQueue()
        let done = ThreadGang.spawn { queue.addOperations(operations, waitUntilFinished: true) }
        guard Deadline.wait(for: started, seconds: Deadline.promptSeconds, in: "OperationQueue starting 4 AsyncBlockOperations", waitingFor: "their work running",
                            hint: "start() should call main(), and AsyncBlockOperation.main() should run the work.") else { return }
        let returned = Deadline.wait(for: done, seconds: 5, in: "addOperations(_:waitUntilFinished: true)", waitingFor: "the call returning")
        #expect(returned, "The queue never learned that the operations finished: finish() must send willChangeValue/didChangeValue for \"isFinished\" (and \"isExecuting\").")
        let unfinished = operations.filter { !$0.isFinished }.count
        #expect(unfinished == 0, "\(unfinished) of 4 operations are not finished after finish() was called.")
    }

    @Test("maxConcurrentOperationCount = 3: at most 3 operations are between start and finish() at once")
    func maxConcurrentOperationCountHolds() {
        let limit = 3
        let meter = ConcurrencyMeter()
        let finisher = DispatchQueue(label: "finisher", attributes: .concurrent)
        let operations = (0..<15).map { _ in
            AsyncBlockOperation { operation in
                meter.enter()
                finisher.asyncAfter(deadline: .now() + 0.005) {
                    meter.leave()
                    operation.finish()
                }
            }
        }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = limit
        queue.addOperations(operations, waitUntilFinished: false)
        guard Deadline.waitUntil(seconds: Deadline.promptSeconds, in: "a queue limited to 3 operations", waitingFor: "the first operation running",
                                 hint: "start() should call main(), and AsyncBlockOperation.main() should run the work.", { meter.totalEntries > 0 }) else { return }
        Deadline.waitUntil(seconds: 5, in: "a queue limited to 3 operations", waitingFor: "15 operations finishing",
                           hint: "After finish(), the queue starts the next operation only if it heard didChangeValue(forKey: \"isFinished\").") {
            operations.allSatisfy(\.isFinished)
        }
        #expect(meter.peak <= limit, "\(meter.peak) operations were running at once in a queue limited to \(limit): the queue started new ones while others had not called finish(). An async operation must stay executing until finish().")
    }
}
