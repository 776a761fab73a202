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

    @Test("An operation finished by its work, and one cancelled before it started, are freed once their queue and their owner let them go")
    func finishedOperationsAreFreed() async {
        // First one operation started by hand, that finishes at once: one that cannot even do
        // that fails here, at once, instead of after the queue's deadline below.
        let probeFinished = Locked(false)
        let probe = AsyncBlockOperation { operation in
            operation.finish()
            probeFinished.withLock { $0 = true }
        }
        guard await Hopeless.call(in: "start() of an operation that finishes at once", { probe.start() }) else { return }
        guard await Hopeless.waitUntil(in: "start() of an operation that finishes at once", waitingFor: "the operation becoming finished", { probe.isFinished },
                                       unless: {
                                           Rules.startLeftReady(probe, startReturned: true, mainRan: probeFinished.current)
                                               ?? Rules.finishLeftUnfinished(probe, finishReturned: probeFinished.current)
                                       }) else { return }

        let worked = WeakOperation()
        let cancelled = WeakOperation()
        let completed = (worked: DispatchSemaphore(value: 0), cancelled: DispatchSemaphore(value: 0))
        let finishReturned = Locked(false)
        let finisher = DispatchQueue(label: "finisher")
        do {
            let working = AsyncBlockOperation { operation in
                finisher.async {
                    operation.finish()
                    finishReturned.withLock { $0 = true }
                }
            }
            let cancelling = AsyncBlockOperation { $0.finish() }
            working.completionBlock = { completed.worked.signal() }
            cancelling.completionBlock = { completed.cancelled.signal() }
            worked.value = working
            cancelled.value = cancelling
            let queue = OperationQueue()
            queue.isSuspended = true
            enqueue([working, cancelling], on: queue)
            cancelling.cancel()
            queue.isSuspended = false
            guard await Hopeless.wait(for: completed.worked, in: "an AsyncOperation in a queue, finished by its work", waitingFor: "its completionBlock",
                                      hint: "finish() must send didChangeValue(forKey: \"isFinished\") after the state became .finished.",
                                      unless: { Rules.finishLeftUnfinished(working, finishReturned: finishReturned.current) }),
                  await Hopeless.wait(for: completed.cancelled, in: "an AsyncOperation in a queue, cancelled before it started", waitingFor: "its completionBlock",
                                      hint: "The queue still calls start() on a cancelled operation: start() must see isCancelled and finish().",
                                      unless: { nil })
            else {
                keepAlive(working, cancelling)  // a wait that failed: the operations may still be in use
                return
            }
        }
        // The queue and the owner have let go. corelibs' Operation.observeValue holds the operation
        // (Unmanaged.passRetained) until its completion block returns, and a right finish() may
        // still be returning on another thread: a moment, hence the wait.
        let freed = await Hopeless.happens(within: Deadline.promptSeconds) { worked.value == nil && cancelled.value == nil }
        let seconds = Int(Deadline.promptSeconds)
        let kept = [(worked.value, "finished by its work"), (cancelled.value, "cancelled before it started")].filter { $0.0 != nil }.map(\.1)
        let observed = kept.count == 2
            ? "Neither AsyncOperation run in the OperationQueue, the one finished by its work nor the one cancelled before it started, was freed within \(seconds) s after its completionBlock ran and the queue and the owner let go."
            : "The AsyncOperation run in the OperationQueue and \(kept.first ?? "finished") was not freed within \(seconds) s after its completionBlock ran and the queue and the owner let go."
        #expect(freed, "\(observed) Something still holds a strong reference: look for a closure the operation keeps that captures the operation itself, or a reference to itself that is not cleared on every way to .finished (also when start() finds it cancelled).")
    }
}

/// A weak reference to an operation, to see whether it was freed.
final class WeakOperation: @unchecked Sendable {
    weak var value: AsyncOperation?
}
