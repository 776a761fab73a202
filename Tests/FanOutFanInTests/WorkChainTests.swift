import Dispatch
import FanOutFanIn
import Foundation
import KataTestSupport
import Testing

/// A chain of `DispatchWorkItem`s joined with `notify`. Isolated, like every check of the suite:
/// a chain that runs on after its checker has gone must not disturb the next check.
@Suite("Work-item chain", .exitIsAFailure)
struct WorkChainTests {
    static let crashHint = "A crash here usually means a step or the completion touched state the chain shares without a lock."

    /// What one chain did, recorded by its steps and its completion.
    final class Record: Sendable {
        let steps = Locked([Int]())
        let offQueue = Locked([Int]())
        let outcomes = Locked([ChainOutcome]())
        let completionOffQueue = Locked(false)
        let started = Stopwatch()

        /// A step that records itself and applies `body`.
        func step(_ index: Int, on queue: MarkedQueue, _ body: @escaping @Sendable (Int) -> Int) -> @Sendable (Int) -> Int {
            { [self] value in
                steps.withLock { $0.append(index) }
                if !queue.isCurrent { offQueue.withLock { $0.append(index) } }
                return body(value)
            }
        }

        func completion(on queue: MarkedQueue) -> @Sendable (ChainOutcome) -> Void {
            { [self] outcome in
                if !queue.isCurrent { completionOffQueue.withLock { $0 = true } }
                outcomes.withLock { $0.append(outcome) }
            }
        }

        /// Set by a block the check puts on the chain's queue after `start` returned: a chain that
        /// put its first step there ran it before.
        let probed = Locked(false)

        func probe(_ queue: MarkedQueue) {
            queue.queue.async { [self] in probed.withLock { $0 = true } }
        }

        /// True when, well after `start` returned, the chain's queue has run the check's probe and
        /// no step: the chain never started (an untouched stub).
        var neverStarted: Bool { steps.current.isEmpty && probed.current && started.seconds > quietSeconds }

        /// Waits for the completion; gives up early when the chain never started.
        func waitForCompletion(in place: String) -> Bool {
            Deadline.waitUntil(
                seconds: Deadline.promptSeconds, in: place, waitingFor: "the chain's completion",
                unless: { [self] in
                    neverStarted
                        ? "start(with:) returned, a block put on the chain's queue after it has run, and \(Int(quietSeconds * 1000)) ms later no step had run and the completion had not been called: the chain never started." : nil
                }, { [self] in !outcomes.current.isEmpty })
        }
    }

    @Test("A chain runs its steps in order on its queue, each with the value of the step before, and calls its completion once with the last value")
    func chainRunsStepsInOrder() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "a chain of work items")
            WorkChainTests.runsStepsInOrder()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "a chain of work items", crashHint: Self.crashHint)
    }

    static func runsStepsInOrder() {
        let queue = MarkedQueue("kata.chain")
        let record = Record()
        let chain = WorkChain(queue: queue.queue, steps: [
            record.step(0, on: queue) { $0 + 1 }, record.step(1, on: queue) { $0 * 2 },
            record.step(2, on: queue) { $0 - 3 }, record.step(3, on: queue) { $0 * 10 },
        ])
        chain.start(with: 5, completion: record.completion(on: queue))
        record.probe(queue)
        guard record.waitForCompletion(in: "a chain of four steps") else { return }
        // One more turn of the chain's queue, for a second completion that would follow the first.
        queue.queue.sync {}
        #expect(record.steps.current == [0, 1, 2, 3], "The steps ran in the order \(record.steps.current), expected [0, 1, 2, 3], each once.")
        #expect(record.outcomes.current == [.finished(90)], "The completion was called with \(record.outcomes.current), expected once with .finished(90): ((5 + 1) * 2 - 3) * 10.")
        #expect(record.offQueue.current.isEmpty, "Steps \(record.offQueue.current) ran off the chain's queue: run each work item on the queue the chain was given.")
        #expect(!record.completionOffQueue.current, "The completion ran off the chain's queue: call it on the queue the chain was given.")
        let emptyQueue = MarkedQueue("kata.chain.empty")
        let empty = Record()
        WorkChain(queue: emptyQueue.queue, steps: []).start(with: 7, completion: empty.completion(on: emptyQueue))
        guard Deadline.waitUntil(seconds: Deadline.promptSeconds, in: "a chain without steps", waitingFor: "the chain's completion", { !empty.outcomes.current.isEmpty }) else { return }
        #expect(empty.outcomes.current == [.finished(7)], "A chain without steps, started with 7, completed with \(empty.outcomes.current), expected .finished(7).")
    }

    @Test("cancel() while a step runs: that step finishes, no later step runs, and the completion says .cancelled; a chain cancelled before start runs nothing")
    func cancelledStepStopsChain() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "a cancelled chain")
            WorkChainTests.cancelStopsChain()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "a cancelled chain", crashHint: Self.crashHint)
    }

    static func cancelStopsChain() {
        let queue = MarkedQueue("kata.chain.cancel")
        let record = Record()
        let inside = Locked(false)
        let gate = DispatchSemaphore(value: 0)
        let chain = WorkChain(queue: queue.queue, steps: [
            record.step(0, on: queue) { $0 + 1 },
            record.step(1, on: queue) { value in
                inside.withLock { $0 = true }
                _ = gate.wait(timeout: .now() + Deadline.promptSeconds)
                return value + 1
            },
            record.step(2, on: queue) { $0 + 1 }, record.step(3, on: queue) { $0 + 1 },
        ])
        chain.start(with: 0, completion: record.completion(on: queue))
        record.probe(queue)
        guard Deadline.waitUntil(
            seconds: Deadline.promptSeconds, in: "a chain of four steps", waitingFor: "step 1 running",
            unless: {
                record.neverStarted
                    ? "start(with:) returned, a block put on the chain's queue after it has run, and \(Int(quietSeconds * 1000)) ms later no step had run: the chain never started." : nil
            }, { inside.current })
        else { gate.signal(); return }
        chain.cancel()
        gate.signal()
        guard record.waitForCompletion(in: "a chain cancelled during step 1") else { return }
        queue.queue.sync {}
        let later = record.steps.current.filter { $0 > 1 }
        if !later.isEmpty {
            Issue.record(Comment(rawValue: "cancel() was called while step 1 ran, and steps \(later) ran after it. DispatchWorkItem.cancel() does not stop an item that is running, and the item's notify block still fires: look at isCancelled there before you start the next step."))
        }
        #expect(record.outcomes.current == [.cancelled], "A chain cancelled during step 1 completed with \(record.outcomes.current), expected once with .cancelled.")

        // cancel() from the calling thread while 200 short steps run, with nothing of the check's
        // between that thread and the queue: only the chain's own state orders cancel() and the
        // steps' notify blocks (what the race check looks at), and the chain still ends once.
        let racing = Record()
        let racingChain = WorkChain(queue: queue.queue, steps: (0..<200).map { index in racing.step(index, on: queue) { $0 + 1 } })
        racingChain.start(with: 0, completion: racing.completion(on: queue))
        Thread.sleep(forTimeInterval: 0.0005)
        racingChain.cancel()
        guard racing.waitForCompletion(in: "a chain of 200 steps cancelled while it runs") else { return }
        queue.queue.sync {}
        let ended = racing.outcomes.current
        #expect(ended == [.cancelled] || ended == [.finished(200)], "A chain of 200 steps cancelled from another thread while it ran completed with \(ended), expected once, with .cancelled (or .finished(200) if it had ended first).")

        let early = Record()
        let earlyChain = WorkChain(queue: queue.queue, steps: [early.step(0, on: queue) { $0 + 1 }, early.step(1, on: queue) { $0 + 1 }])
        earlyChain.cancel()
        earlyChain.start(with: 0, completion: early.completion(on: queue))
        guard Deadline.waitUntil(seconds: Deadline.promptSeconds, in: "a chain cancelled before start", waitingFor: "the chain's completion", { !early.outcomes.current.isEmpty }) else { return }
        queue.queue.sync {}
        #expect(early.steps.current.isEmpty && early.outcomes.current == [.cancelled], "A chain cancelled before start(with:) ran steps \(early.steps.current) and completed with \(early.outcomes.current), expected no step and .cancelled once.")
    }
}
