import Dispatch
import FanOutFanIn
import Foundation
import KataTestSupport
import Testing

/// One `BlockOperation` with several execution blocks, and `start()` by hand. Isolated: a block
/// added once the operation started is a fatalError in swift-corelibs-foundation.
@Suite("BlockOperation fan-out", .exitIsAFailure)
struct BlockFanOutTests {
    static let crashHint = "A crash here usually means an execution block was added after the operation started: swift-corelibs-foundation's addExecutionBlock stops the process with \"blocks cannot be added after the operation has started executing or finished\" (an exception on Apple platforms)."

    /// An OperationQueue that notes how many execution blocks each BlockOperation had when it was queued.
    final class CountingQueue: OperationQueue, @unchecked Sendable {
        let blocksWhenQueued = Locked([Int]())

        override func addOperation(_ op: Operation) {
            note(op)
            super.addOperation(op)
        }

        override func addOperations(_ ops: [Operation], waitUntilFinished wait: Bool) {
            ops.forEach(note)
            super.addOperations(ops, waitUntilFinished: wait)
        }

        private func note(_ operation: Operation) {
            if let block = operation as? BlockOperation { blocksWhenQueued.withLock { $0.append(block.executionBlocks.count) } }
        }
    }

    /// Five parts that end in another order than they start, and the results they give.
    static func parts(_ ran: Locked<Int>) -> [@Sendable () -> Int] {
        (0..<5).map { index in
            { () -> Int in
                usleep(UInt32((5 - index) * 2_000))
                ran.withLock { $0 += 1 }
                return index * 11
            }
        }
    }

    static let expected = [0, 11, 22, 33, 44]

    @Test("One BlockOperation with a block per part: the completion is called once, after every block, with every result in part order")
    func blockOperationCollectsEveryPart() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "a BlockOperation of five parts")
            BlockFanOutTests.collectsEveryPart()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "a BlockOperation of five parts", crashHint: Self.crashHint)
    }

    static func collectsEveryPart() {
        let queue = OperationQueue()
        let ran = Locked(0)
        let seen = Locked([[Int]]())
        let ranWhenCompleted = Locked(-1)
        let started = Stopwatch()
        BlockFanOut.run(parts(ran), on: queue) { results in
            ranWhenCompleted.withLock { $0 = ran.current }
            seen.withLock { $0.append(results) }
        }
        guard Deadline.waitUntil(
            seconds: Deadline.promptSeconds, in: "a BlockOperation of five parts", waitingFor: "the completion",
            unless: {
                ran.current == 0 && queue.operationCount == 0 && started.seconds > quietSeconds
                    ? "run(_:on:completion:) returned and, \(Int(quietSeconds * 1000)) ms later, no part had run and the queue held no operation." : nil
            }, { !seen.current.isEmpty })
        else { return }
        queue.waitUntilAllOperationsAreFinished()
        #expect(ranWhenCompleted.current == 5, "The completion was called when \(ranWhenCompleted.current) of 5 parts had run: call it from the operation's completionBlock, which runs once every execution block has returned.")
        #expect(seen.current == [expected], "The completion was called with \(seen.current), expected once with \(expected): each part's result in its own slot, in part order, whatever order the blocks end in. (swift-corelibs-foundation runs the blocks one after another; Apple platforms run them at the same time, which this check cannot show on Linux: guard the slots with a lock.)")
    }

    @Test("Every execution block is added before the operation is queued")
    func blocksAddedBeforeQueueing() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "a BlockOperation being queued")
            BlockFanOutTests.blocksBeforeQueueing()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "a BlockOperation being queued", crashHint: Self.crashHint)
    }

    static func blocksBeforeQueueing() {
        let queue = CountingQueue()
        // The queue holds the operation until the check has looked: nothing starts early by luck.
        queue.isSuspended = true
        let ran = Locked(0)
        let done = Locked(false)
        let started = Stopwatch()
        BlockFanOut.run(parts(ran), on: queue) { _ in done.withLock { $0 = true } }
        guard Deadline.waitUntil(
            seconds: Deadline.promptSeconds, in: "a BlockOperation being queued", waitingFor: "an operation on the queue",
            unless: {
                started.seconds > quietSeconds
                    ? "run(_:on:completion:) returned and, \(Int(quietSeconds * 1000)) ms later, nothing had been added to the queue it was given." : nil
            }, { !queue.blocksWhenQueued.current.isEmpty })
        else { return }
        let counts = queue.blocksWhenQueued.current
        queue.isSuspended = false
        #expect(counts == [5], Comment(rawValue: "When the BlockOperation was added to the queue it had \(counts.map(String.init).joined(separator: ", ")) execution blocks, expected all 5. A block added after the operation was queued races with its start: Apple platforms raise an exception, swift-corelibs-foundation stops the process once it has started; whether every block comes in time is left to chance. Add every block, then queue the operation."))
        Deadline.waitUntil(seconds: Deadline.promptSeconds, in: "a BlockOperation of five parts", waitingFor: "the completion", { done.current })
    }

    /// An asynchronous operation: start() hands the work to another thread and returns; the
    /// work announces isFinished 50 ms later.
    final class LaterOperation: Operation, @unchecked Sendable {
        private let state = Locked((executing: false, finished: false))
        let workDone = Locked(false)

        override var isAsynchronous: Bool { true }
        override var isExecuting: Bool { state.current.executing }
        override var isFinished: Bool { state.current.finished }

        override func start() {
            willChangeValue(forKey: "isExecuting")
            state.withLock { $0.executing = true }
            didChangeValue(forKey: "isExecuting")
            let thread = Thread { [self] in
                usleep(50_000)
                workDone.withLock { $0 = true }
                willChangeValue(forKey: "isExecuting")
                willChangeValue(forKey: "isFinished")
                state.withLock { $0 = (false, true) }
                didChangeValue(forKey: "isExecuting")
                didChangeValue(forKey: "isFinished")
            }
            thread.start()
        }
    }

    @Test("runStandalone returns only when the operation is finished: a synchronous one, and an asynchronous one whose start() returns first")
    func standaloneStartWaitsForFinish() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "runStandalone")
            BlockFanOutTests.standaloneWaits()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "runStandalone", crashHint: Self.crashHint)
    }

    static func standaloneWaits() {
        let synchronousRan = Locked(false)
        let synchronous = BlockOperation { synchronousRan.withLock { $0 = true } }
        guard Await.blockingCall("runStandalone of a BlockOperation", in: "runStandalone", { BlockFanOut.runStandalone(synchronous) }) else { return }
        #expect(synchronousRan.current && synchronous.isFinished, "runStandalone of a BlockOperation returned with its block \(synchronousRan.current ? "run" : "not run") and isFinished \(synchronous.isFinished), expected both: start() it by hand.")
        let later = LaterOperation()
        guard Await.blockingCall("runStandalone of an asynchronous operation", in: "runStandalone", { BlockFanOut.runStandalone(later) }) else { return }
        #expect(later.isFinished && later.workDone.current, "runStandalone of an asynchronous operation returned while it was \(later.isExecuting ? "still executing" : "not started") (isFinished \(later.isFinished)): start() of an asynchronous operation returns as soon as its work has begun. Wait until the operation is finished (a dependent operation on a queue of your own is told, on every platform).")
    }
}
