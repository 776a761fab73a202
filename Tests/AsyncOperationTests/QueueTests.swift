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
    func dependentWaitsForFinish() async {
        let queue = OperationQueue()
        let mainReturned = DispatchSemaphore(value: 0)
        let dependentStarted = DispatchSemaphore(value: 0)
        let asyncWork = RecordingOperation { _ in mainReturned.signal() }  // finishes later
        let dependent = BlockOperation { dependentStarted.signal() }
        dependent.addDependency(asyncWork)
        enqueue([asyncWork, dependent], on: queue)

        guard await Hopeless.wait(for: mainReturned, in: "OperationQueue starting an AsyncOperation", waitingFor: "its work running",
                            hint: "start() should call main().", unless: { asyncWork.hopeless }) else { return }
        let early = await Hopeless.happens(within: 0.3) { dependentStarted.wait(timeout: .now()) == .success }
        #expect(!early,
                "The dependent started although the operation had not called finish(): the queue thought it was finished when main() returned. Override isAsynchronous, isExecuting and isFinished, and do not call super.start().")
        guard !early else { return }
        asyncWork.finishAndRecord()
        await Hopeless.wait(for: dependentStarted, in: "the dependent of a finished AsyncOperation", waitingFor: "the dependent starting",
                      hint: "finish() must send didChangeValue(forKey: \"isFinished\") after the state became .finished.",
                      unless: { asyncWork.hopeless })
    }

    @Test("addOperations(_:waitUntilFinished: true) returns once every operation called finish()")
    func waitUntilFinishedReturns() async {
        let finisher = DispatchQueue(label: "finisher", attributes: .concurrent)
        let started = DispatchGroup()
        let operations = (0..<4).map { _ in
            started.enter()
            return RecordingOperation { operation in
                started.leave()
                finisher.asyncAfter(deadline: .now() + 0.05) { operation.finishAndRecord() }
            }
        }
        let queue = OperationQueue()
        let done = ThreadGang.spawn { queue.addOperations(operations, waitUntilFinished: true) }
        let allStarted = DispatchSemaphore(value: 0)
        started.notify(queue: .global()) { allStarted.signal() }
        guard await Hopeless.wait(for: allStarted, in: "OperationQueue starting 4 AsyncOperations", waitingFor: "their work running",
                            hint: "start() should call main().", unless: { firstReason(operations) { $0.settledHopeless } }) else { return }
        let returned = await Hopeless.wait(for: Self.semaphore(leftBy: done), in: "addOperations(_:waitUntilFinished: true)", waitingFor: "the call returning",
                                     unless: { firstReason(operations) { $0.settledHopeless } })
        #expect(returned, "The queue never learned that the operations finished: finish() must send willChangeValue/didChangeValue for \"isFinished\" (and \"isExecuting\").")
        let unfinished = operations.filter { !$0.isFinished }.count
        #expect(unfinished == 0, "\(unfinished) of 4 operations are not finished after finish() was called.")
    }

    /// A semaphore signalled when `group` is left: what `Hopeless.wait` waits for.
    static func semaphore(leftBy group: DispatchGroup) -> DispatchSemaphore {
        let left = DispatchSemaphore(value: 0)
        group.notify(queue: .global()) { left.signal() }
        return left
    }

    @Test("maxConcurrentOperationCount = 3: at most 3 operations are between start and finish() at once")
    func maxConcurrentOperationCountHolds() async {
        let limit = 3
        let meter = ConcurrencyMeter()
        let finisher = DispatchQueue(label: "finisher", attributes: .concurrent)
        let operations = (0..<15).map { _ in
            RecordingOperation { operation in
                meter.enter()
                finisher.asyncAfter(deadline: .now() + 0.005) {
                    meter.leave()
                    operation.finishAndRecord()
                }
            }
        }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = limit
        enqueue(operations, on: queue)
        let hopeless = { firstReason(operations) { $0.settledHopeless } }
        guard await Hopeless.waitUntil(in: "a queue limited to 3 operations", waitingFor: "the first operation running",
                                 hint: "start() should call main().", { meter.totalEntries > 0 }, unless: hopeless) else { return }
        await Hopeless.waitUntil(seconds: Deadline.promptSeconds, limit: 10, in: "a queue limited to 3 operations", waitingFor: "15 operations finishing",
                           hint: "After finish(), the queue starts the next operation only if it heard didChangeValue(forKey: \"isFinished\").",
                           progress: { meter.totalEntries }, { operations.allSatisfy(\.isFinished) }, unless: hopeless)
        #expect(meter.peak <= limit, "\(meter.peak) operations were running at once in a queue limited to \(limit): the queue started new ones while others had not called finish(). An async operation must stay executing until finish().")
    }
}
