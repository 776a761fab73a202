import AsyncOperation
import Foundation
import KataTestSupport
import Testing

/// The state machine's edges: finishing at once, cancelling before and during the work,
/// finishing twice, and starting by hand.
@Suite("Lifecycle", .exitIsAFailure)
struct LifecycleTests {
    @Test("main() that calls finish() at once leaves the operation .finished")
    func immediateFinishEndsFinished() async {
        let workDone = DispatchSemaphore(value: 0)
        let workRan = Locked(false)
        let operation = AsyncBlockOperation { operation in
            operation.finish()
            workRan.withLock { $0 = true }
            workDone.signal()
        }
        let startReturned = Locked(false)
        guard await Hopeless.call(in: "start() of an operation that finishes at once", {
            operation.start()
            startReturned.withLock { $0 = true }
        }) else { return }
        // The state is decided once both have happened: the work called finish(), and start() returned.
        guard await Hopeless.wait(for: workDone, in: "start() of an operation that finishes at once", waitingFor: "its work running",
                            hint: "start() should call main(), and AsyncBlockOperation.main() should run the work.",
                            unless: { Rules.startLeftReady(operation, startReturned: startReturned.current, mainRan: workRan.current) })
        else { return }
        // finish() has returned; a finish() that hands the transition to a private queue may still be on its way.
        _ = await Hopeless.happens(within: Hopeless.settleSeconds) { operation.isFinished }
        let state = operation.state
        #expect(state == .finished && operation.isFinished && !operation.isExecuting,
                "main() called finish() at once, yet after start() returned the state is .\(state.rawValue) (isFinished \(operation.isFinished), isExecuting \(operation.isExecuting)). Enter .executing before calling main(), never after: otherwise start() overwrites .finished with .executing.")
    }

    @Test("Cancelled before start: main() never runs, the operation finishes with its notifications, its dependents run")
    func cancelledBeforeStart() async {
        let operation = RecordingOperation()
        let dependentRan = DispatchSemaphore(value: 0)
        let dependent = BlockOperation { dependentRan.signal() }
        dependent.addDependency(operation)
        let queue = OperationQueue()
        queue.isSuspended = true
        enqueue([operation, dependent], on: queue)
        operation.cancel()
        queue.isSuspended = false
        let ran = await Hopeless.wait(for: dependentRan, in: "a queue holding a cancelled AsyncOperation", waitingFor: "its dependent running",
                                hint: "The queue still calls start() on a cancelled operation: start() must see isCancelled and finish().",
                                unless: { Self.cancelledStartHopeless(operation) })
        #expect(operation.mainRuns.current == 0, "main() ran although the operation was cancelled before it started: start() must check isCancelled first and finish instead.")
        guard ran else { return }
        #expect(operation.isFinished, "The cancelled operation should be finished once the queue started it.")
        // The announcement, read on one cancelled operation started by hand: in a queue, Linux's
        // OperationQueue announces a finish that start() left silent by itself, so only outside a
        // queue is every did the learner's own.
        let alone = RecordingOperation(watched: true)
        alone.cancel()
        guard await Hopeless.call(in: "start() of a cancelled operation, by hand", { alone.start() }) else { return }
        guard await Hopeless.waitUntil(in: "start() of a cancelled operation, by hand", waitingFor: "the operation becoming finished", { alone.isFinished },
                                       unless: { Self.cancelledStartHopeless(alone) }) else { return }
        #expect(alone.mainRuns.current == 0, "main() ran although the operation was cancelled before start() was called: start() must check isCancelled first and finish instead.")
        guard let notes = alone.observedNotifications else { return }
        if let problem = announcementProblem(notes, key: "isFinished", before: false, after: true, when: "Finishing a cancelled operation in start()") {
            Issue.record(Comment(rawValue: problem))
        }
    }

    /// The queue called start() on the cancelled operation and it returned: the operation is then
    /// finished (with its announcement), or it never will be.
    static func cancelledStartHopeless(_ operation: RecordingOperation) -> String? {
        guard operation.startReturns.current > 0 else { return nil }
        if !operation.isFinished {
            return "The queue called start() on the cancelled operation and start() returned, yet the operation is not finished (state .\(operation.state.rawValue)): start() must see isCancelled and finish(), or the queue and the operation's dependents wait for ever."
        }
        return operation.hopeless
    }

    @Test("Cancelled while running: isCancelled is true, the work sees it, and the operation stays executing until finish()")
    func cancelledWhileRunning() async {
        let running = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let sawCancel = Locked<Bool?>(nil)
        let operation = RecordingOperation { operation in
            running.signal()
            // The work goes on on a thread of its own, as real asynchronous work does.
            Thread {
                // Held until the check lets it go (on every path: `defer` below), however long a
                // loaded machine takes to get there: a hold that ends by itself (after 5 s, say) lets
                // the work finish before cancel() on a loaded machine, and the reference fails.
                proceed.wait()
                sawCancel.withLock { $0 = operation.isCancelled }
                operation.finishAndRecord()
            }.start()
        }
        let dependentRan = Locked(false)
        let dependent = BlockOperation { dependentRan.withLock { $0 = true } }
        dependent.addDependency(operation)
        let queue = OperationQueue()
        var released = false
        defer { if !released { proceed.signal() } }
        enqueue([operation, dependent], on: queue)
        guard await Hopeless.wait(for: running, in: "an AsyncOperation in a queue", waitingFor: "its work running",
                            hint: "start() should call main().", unless: { operation.hopeless }) else { return }

        operation.cancel()
        #expect(operation.isCancelled, "isCancelled should be true after cancel().")
        #expect(operation.state == .executing && !operation.isFinished,
                "After cancel() the work is still running, so the operation must stay .executing; it is .\(operation.state.rawValue). cancel() must not finish it: the work sees isCancelled and calls finish() itself.")
        #expect(!dependentRan.current, "The dependent ran while the cancelled operation's work was still running.")
        released = true
        proceed.signal()
        await Hopeless.waitUntil(in: "a cancelled operation whose work called finish()", waitingFor: "isFinished", { operation.isFinished },
                           unless: { operation.hopeless })
        #expect(sawCancel.current == true, "The running work should see isCancelled == true after cancel().")
    }

    @Test("finish() called twice, or from several threads at once, makes one transition with one pair of notifications; cancel() after it changes nothing")
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
        let operations = (0..<100).map { _ in RecordingOperation(watched: true) }
        for operation in operations {
            operation.completionBlock = { completions.withLock { $0 += 1 } }
            operation.start()
        }
        guard Hopeless.waitUntilBlocking(in: "finish() from several threads", waitingFor: "100 started operations leaving .ready",
                                 { operations.allSatisfy { $0.state != .ready } },
                                 unless: { firstReason(operations) { $0.settledHopeless } }) else { return }
        let threads = 4
        let together = StartBarrier(parties: threads)
        // 100 barrier rounds: on a loaded machine they take seconds; the gang waits on while they move.
        ThreadGang.run(threads, in: "finish() from several threads", progress: { together.rounds }) { _ in
            for operation in operations {
                guard together.arrive() else { return }
                operation.finish()
            }
        }
        for operation in operations { operation.finishAndRecord() }  // and once more, late
        // Every finish() has returned; a finish() that hands the transition to a private queue may still be on its way.
        guard Hopeless.waitUntilBlocking(in: "finish() from several threads", waitingFor: "100 operations becoming finished",
                                 { operations.allSatisfy(\.isFinished) },
                                 unless: { firstReason(operations) { $0.settledHopeless } }) else { return }
        guard RecordingOperation.notificationsAreObservable else {
            Issue.record("This check could not observe the operations' didChangeValue(forKey:) calls on this platform (see DidChangeSite in the suite), so it cannot judge them. This is not a fault in your code; please report it with your platform.")
            return
        }
        // Then cancel() once on each finished operation. Every finish() has returned, but one that
        // hands the transition to a private queue may still be announcing: cancel only once each
        // operation's did(isFinished) is in, so that what comes after is cancel()'s. Counted, not
        // felt: swift-corelibs-foundation's Operation.cancel() returns at once when isFinished, and
        // its Operation.observeValue ignores a did(isFinished) once its own state is .finished
        // (Sources/Foundation/Operation.swift), so a second announcement changes nothing on Linux;
        // with KVO every observer hears it again.
        guard Hopeless.waitUntilBlocking(in: "finish() from several threads", waitingFor: "a didChangeValue(forKey: \"isFinished\") from each of 100 operations",
                                 { operations.allSatisfy { $0.notifications.contains { $0.key == "isFinished" && $0.phase == .did } } },
                                 unless: { firstReason(operations) { $0.settledHopeless } }) else { return }
        let announcedBeforeCancel = operations.map(\.notifications.count)
        for operation in operations { operation.cancel() }
        var problems: [String] = []
        var cancelProblems: [String] = []
        for (operation, before) in zip(operations, announcedBeforeCancel) {
            let notes = operation.notifications
            let afterCancel = notes.dropFirst(before).filter { $0.key == "isFinished" && $0.phase == .did }.count
            if afterCancel == 1 {
                cancelProblems.append("a didChangeValue(forKey: \"isFinished\") after cancel()")
            } else if afterCancel > 1 {
                cancelProblems.append("\(afterCancel) didChangeValue(forKey: \"isFinished\") calls after cancel()")
            }
            if operation.state != .finished || !operation.isFinished || operation.isExecuting {
                cancelProblems.append("state .\(operation.state.rawValue) (isFinished \(operation.isFinished), isExecuting \(operation.isExecuting)) after cancel()")
            }
            let finishes = notes.prefix(before).filter { $0.key == "isFinished" }
            let dids = finishes.filter { $0.phase == .did }.count
            let wills = finishes.count - dids
            if dids != 1 {
                problems.append("\(dids) didChangeValue(forKey: \"isFinished\") calls")
            } else if RecordingOperation.willIsObservable && wills != 1 {
                problems.append("\(wills) willChangeValue(forKey: \"isFinished\") calls")
            }
        }
        if problems.isEmpty && cancelProblems.isEmpty {
            Hopeless.waitUntilBlocking(in: "finish() from several threads", waitingFor: "100 completion blocks", { completions.current >= 100 },
                               unless: { firstReason(operations) { $0.settledHopeless } })
            usleep(50_000)  // a duplicate completion would arrive by now
            if completions.current != 100 { problems.append("\(completions.current) completion blocks for 100 operations, each finished 5 times and then cancelled once") }
        }
        #expect(cancelProblems.isEmpty, "cancel() was called once on each of 100 operations after they finished: \(cancelProblems.count) problems, first: \(cancelProblems.first ?? ""). cancel() on a finished operation must change nothing: it stays .finished, announces nothing more, and its completionBlock has run once. Let super.cancel() mark the operation cancelled, and leave every state change to start() and finish().")
        #expect(problems.isEmpty, "After finish() was called 5 times (4 of them at once) on each of 100 started operations: \(problems.count) problems, first: \(problems.first ?? ""). Only the first call may change the state and send one will/did pair; later calls must do nothing: decide under the lock which call makes the transition, and let the others return before they announce anything.")
    }

    @Test("start() called by hand, without a queue, runs the work; finish() from another thread ends it and fires completionBlock")
    func manualStartWithoutQueue() async {
        let completed = DispatchSemaphore(value: 0)
        let workRan = DispatchSemaphore(value: 0)
        let ran = Locked(false)
        let finishReturned = Locked(false)
        let finisher = DispatchQueue(label: "finisher")
        let operation = AsyncBlockOperation { operation in
            ran.withLock { $0 = true }
            workRan.signal()
            finisher.asyncAfter(deadline: .now() + 0.01) {
                operation.finish()
                finishReturned.withLock { $0 = true }
            }
        }
        let witness = FinishWitness(of: operation)
        keepAlive(operation, witness.operation)
        operation.completionBlock = { completed.signal() }
        #expect(operation.isAsynchronous, "isAsynchronous should be true: the operation returns from start() before its work is done.")
        #expect(operation.isReady && operation.state == .ready, "A new operation without dependencies should be ready.")
        let startReturned = Locked(false)
        guard await Hopeless.call(in: "start() called by hand", {
            operation.start()
            startReturned.withLock { $0 = true }
        }) else { return }
        guard await Hopeless.wait(for: workRan, in: "an operation started by hand", waitingFor: "its work running",
                            hint: "start() should call main(), and AsyncBlockOperation.main() should run the work.",
                            unless: { Rules.startLeftReady(operation, startReturned: startReturned.current, mainRan: ran.current) })
        else { return }
        await Hopeless.wait(for: completed, in: "an operation started by hand", waitingFor: "completionBlock running after finish()",
                      hint: "completionBlock runs when the operation announces isFinished (didChangeValue(forKey: \"isFinished\") after the change).",
                      unless: {
                          Rules.finishLeftUnfinished(operation, finishReturned: finishReturned.current)
                              ?? Rules.finishedSilently(operation, witness: witness, known: finishReturned.current)
                      })
        #expect(operation.state == .finished, "After finish() the state should be .finished; it is .\(operation.state.rawValue).")
    }

    @Test("isReady respects dependencies: not ready while a dependency is unfinished")
    func readyRespectsDependencies() async {
        let first = AsyncBlockOperation { _ in }
        let second = AsyncBlockOperation { $0.finish() }
        second.addDependency(first)
        let witness = FinishWitness(of: first)
        keepAlive(first, second, witness.operation)
        #expect(!second.isReady, "An operation whose dependency has not finished must not be ready: combine super.isReady (the dependencies) with your own state.")
        let startReturned = Locked(false)
        guard await Hopeless.call(in: "start() of the dependency", {
            first.start()
            startReturned.withLock { $0 = true }
        }) else { return }
        guard await Hopeless.waitUntil(in: "start() of the dependency", waitingFor: "the dependency leaving .ready", { first.state != .ready },
                                 unless: { Rules.startLeftReady(first, startReturned: startReturned.current, mainRan: false) }) else { return }
        #expect(!second.isReady, "An operation whose dependency is executing must not be ready.")
        first.finish()
        // finish() returned: the dependency is finished (or about to be, if finish() hands the
        // transition to a private queue), and its announcement makes the dependent ready.
        await Hopeless.waitUntil(in: "finish() of the dependency", waitingFor: "the dependent becoming ready", { second.isReady },
                           unless: {
                               (Rules.finishLeftUnfinished(first, finishReturned: true)
                                   ?? Rules.finishedSilently(first, witness: witness))
                                   .map { "Once its dependency finished, the operation should be ready. " + $0 }
                                   ?? (first.isFinished && witness.heardFinish && !second.isReady
                                       ? "Its dependency finished and announced it, yet the operation is not ready: isReady must be true when super.isReady is and the state is .ready." : nil)
                           })
    }
}
