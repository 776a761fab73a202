import CancellableWork
import Dispatch
import Foundation
import KataTestSupport
import Testing

/// DispatchWorkItem.cancel() only stops an item that has not started; the batch has to count
/// every job exactly once either way. The classic bug calls `group.leave()` by hand for every
/// cancelled item: for one that had already started, its own `leave()` comes too, the group is
/// unbalanced, and the notify fires early or the process traps.
///
/// Every call into the batch runs on a dedicated thread watched with a deadline (`Await.call`),
/// and every wait suspends instead of blocking, so a batch that blocks or never ends fails its
/// check within seconds without holding up the others.
@Suite("CancellableBatch", .exitIsAFailure)
struct BatchTests {
    static let submitHint = "start() should submit each job to the queue as a DispatchWorkItem."

    @Test("Cancelled before start: the body never runs, the outcome is .cancelledBeforeStart, and the batch still ends")
    func cancelledBeforeStart() async {
        let place = "a batch with jobs cancelled before they started"
        let serial = DispatchQueue(label: "jobs")
        let batch = CancellableBatch<Int>(queue: serial)
        let liveness = Liveness()
        let release = Gate()
        let bodiesRun = Locked([Int]())
        batch.add(liveness.tie("job 0") { _ in bodiesRun.withLock { $0.append(0) }; release.pass(); return 0 })
        batch.add { _ in bodiesRun.withLock { $0.append(1) }; return 1 }  // waits behind job 0 on the serial queue
        batch.add { _ in bodiesRun.withLock { $0.append(2) }; return 2 }
        defer { release.open() }
        guard await Await.returns("cancel(2) before start()", in: place, { batch.cancel(2) }),
              let probe = await NotifyProbe.registered(on: batch, in: place),
              await Await.returns("start()", in: place, hint: "start() only submits the jobs; it must not wait for them.", { batch.start() })
        else { return }
        guard await Await.until(in: "a started batch", waitingFor: "its first job running", hint: Self.submitHint,
                                unless: { jobCannotRun("job 0", liveness) { !bodiesRun.current.isEmpty } ?? batchEndedBeforeJob("job 0", probe) },
                                { !bodiesRun.current.isEmpty }) else { return }
        guard await Await.returns("cancel(1)", in: place, { batch.cancel(1) }) else { return }
        release.open()
        guard await probe.call(in: place) else { return }
        #expect(bodiesRun.current == [0], "Only job 0's body should have run; bodies run: \(bodiesRun.current). A job cancelled before it started must never run its body (cancel its DispatchWorkItem, and check the token before calling the body).")
        let outcomes = probe.calls.first ?? []
        #expect(describe(outcomes) == describe([JobOutcome<Int>.completed(0), .cancelledBeforeStart, .cancelledBeforeStart]),
                "Outcomes were \(describe(outcomes)); expected [.completed(0), .cancelledBeforeStart, .cancelledBeforeStart].")
        let waited = await Await.call("wait(timeout:)", in: place) { batch.wait(timeout: .now() + 1) }
        #expect(waited == .success, "wait(timeout:) should return .success once the batch has ended.")
    }

    @Test("Cancelled while running: the body sees the token, the outcome is .cancelledWhileRunning, and the batch ends only after the body returned")
    func cancelledWhileRunning() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: 6, in: "cancelling a running job")
            BatchTests.cancelARunningJob()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "cancelling a running job",
            crashHint: "A trap here usually means DispatchGroup.leave() was called more often than enter(): a job cancelled while it runs must be counted once, when its body returns, not again by cancel().")
    }

    /// Runs in the child process of an isolated check: blocking waits are fine there.
    static func cancelARunningJob() {
        let batch = CancellableBatch<String>(queue: DispatchQueue(label: "jobs", attributes: .concurrent))
        let liveness = Liveness()
        let running = DispatchSemaphore(value: 0)
        let started = Locked(false)
        let mayReturn = Gate()
        let sawCancel = Locked(false)
        let returned = Locked(false)
        batch.add(liveness.tie("job 0") { token in
            started.withLock { $0 = true }
            running.signal()
            let saw = waitForCancel(token, unless: mayReturn)
            sawCancel.withLock { $0 = saw }
            mayReturn.pass()
            returned.withLock { $0 = true }
            return nil
        })
        batch.add { _ in "done" }
        let probe = NotifyProbe<String>()
        guard Await.blockingCall("notify(queue:_:)", in: "a batch", { probe.register(on: batch) }),
              Await.blockingCall("start()", in: "a batch", { batch.start() }) else { return }
        guard Deadline.wait(for: running, in: "a started batch", waitingFor: "the job running", hint: submitHint,
                            unless: { jobCannotRun("job 0", liveness) { started.current } ?? batchEndedBeforeJob("job 0", probe) })
        else { return }
        defer { mayReturn.open() }
        guard Await.blockingCall("cancel(0)", in: "a running job", { batch.cancel(0) }) else { return }
        // The job polls its token until it sees the cancel; it holds on until this check lets it go.
        guard Deadline.waitUntil(seconds: Deadline.promptSeconds, in: "a running job", waitingFor: "the job seeing its token cancelled",
                                 hint: "cancel(_:) must set the job's cancellation flag; the token the job received reads it.", { sawCancel.current })
        else { return }
        // The body has seen the cancel but has not returned: the batch must not be over.
        #expect(!probe.wasCalled(within: 0.2), "notify fired while a cancelled job's body was still running: the batch ends only when every body has returned. Do not leave() the group for a job that has started: Dispatch leaves it when the item returns.")
        let whileRunning = Locked(DispatchTimeoutResult.success)
        guard Await.blockingCall("wait(timeout: .now() + 0.05)", in: "a running job", { whileRunning.withLock { $0 = batch.wait(timeout: .now() + 0.05) } }) else { return }
        #expect(whileRunning.current == .timedOut, "wait(timeout:) returned .success while a job's body was still running.")
        mayReturn.open()
        guard probe.waitForCall(in: "a batch with a cancelled running job") else { return }
        #expect(returned.current, "notify fired before the cancelled body returned.")
        let outcomes = probe.calls.first ?? []
        #expect(describe(outcomes) == describe([JobOutcome<String>.cancelledWhileRunning, .completed("done")]),
                "Outcomes were \(describe(outcomes)); expected [.cancelledWhileRunning, .completed(\"done\")]: a body that ran and returned nil after a cancel is .cancelledWhileRunning.")
        usleep(100_000)
        #expect(probe.calls.count == 1, "notify's completion ran \(probe.calls.count) times; it must run exactly once.")
    }

    @Test("notify fires exactly once, on its queue, with outcomes in add order; also when registered after the end")
    func notifyOnceInAddOrder() async {
        let place = "a batch of 20 jobs"
        let batch = CancellableBatch<Int>(queue: DispatchQueue(label: "jobs", attributes: .concurrent))
        for index in 0..<20 {
            // Later jobs finish first, so completion order is the reverse of add order.
            batch.add { _ in usleep(UInt32((20 - index) * 500)); return index * 10 }
        }
        guard let early = await NotifyProbe.registered(on: batch, in: place),
              await Await.returns("start()", in: place, { batch.start() }),
              await early.call(in: place) else { return }
        let waited = await Await.call("wait(timeout:)", in: place) { batch.wait(timeout: .now() + 1) }
        #expect(waited == .success, "wait(timeout:) should return .success once the batch has ended.")
        guard let late = await NotifyProbe.registered(on: batch, in: "notify registered after the batch ended") else { return }
        await late.call(in: "notify registered after the batch ended")
        await Await.pause(0.1)  // a second call would come by now
        let expected = describe((0..<20).map { JobOutcome<Int>.completed($0 * 10) })
        #expect(early.calls.count == 1, "notify's completion ran \(early.calls.count) times; it must run exactly once.")
        #expect(early.calls.first.map(describe) == expected,
                "Outcomes were \(early.calls.first.map(describe) ?? "none"); expected them in add order: \(expected). Store each outcome at its job's index, not in the order jobs finish.")
        #expect(early.onQueue == [true], "notify's completion must run on the queue passed to notify(queue:_:).")
        #expect(late.calls.count == 1 && late.calls.first.map(describe) == expected,
                "A completion registered after the batch ended should be called once, with the same outcomes.")
    }

    @Test("An empty batch and a batch cancelled before start both end: notify fires once, wait returns .success")
    func emptyAndCancelledBatchesEnd() async {
        let place = "an empty batch"
        let empty = CancellableBatch<Int>(queue: DispatchQueue(label: "jobs"))
        let early = await Await.call("wait(timeout:) before start()", in: place) { empty.wait(timeout: .now() + 0.05) }
        #expect(early == .timedOut, "wait(timeout:) returned .success before start(): a batch that has not started has not ended.")
        guard let emptyProbe = await NotifyProbe.registered(on: empty, in: place) else { return }
        let firedBeforeStart = await Await.happens(within: 0.05) { emptyProbe.wasCalled }
        #expect(!firedBeforeStart, "notify fired before start(): the batch has not ended yet.")
        guard await Await.returns("start()", in: place, { empty.start() }) else { return }
        await emptyProbe.call(in: place)
        let ended = await Await.call("wait(timeout:)", in: place) { empty.wait(timeout: .now() + 1) }
        #expect(ended == .success, "An empty batch ends as soon as it starts: wait should return .success.")

        let cancelledPlace = "a batch cancelled before start"
        let all = CancellableBatch<Int>(queue: DispatchQueue(label: "jobs"))
        let ran = Locked(0)
        for index in 0..<5 { all.add { _ in ran.withLock { $0 += 1 }; return index } }
        guard let allProbe = await NotifyProbe.registered(on: all, in: cancelledPlace),
              await Await.returns("cancelAll()", in: cancelledPlace, { all.cancelAll() }),
              await Await.returns("start()", in: cancelledPlace, { all.start() }),
              await allProbe.call(in: cancelledPlace) else { return }
        await Await.pause(0.05)
        #expect(ran.current == 0, "\(ran.current) bodies ran although cancelAll() came before start().")
        #expect(allProbe.calls.count == 1, "notify's completion ran \(allProbe.calls.count) times; it must run exactly once.")
        #expect(allProbe.calls.first.map(describe) == describe([JobOutcome<Int>](repeating: .cancelledBeforeStart, count: 5)),
                "Every job should be .cancelledBeforeStart; got \(allProbe.calls.first.map(describe) ?? "none").")
        #expect(emptyProbe.calls.count == 1 && emptyProbe.calls.first?.isEmpty == true,
                "An empty batch should notify once with no outcomes; got \(emptyProbe.calls.count) calls.")
    }

    @Test("wait(timeout:) returns .timedOut while a job is still blocked, then .success once it returns")
    func waitTimesOutWhileBlocked() async {
        let place = "a batch with one blocked job"
        let batch = CancellableBatch<Int>(queue: DispatchQueue(label: "jobs"))
        let liveness = Liveness()
        let running = Locked(false)
        let release = Gate()
        defer { release.open() }
        batch.add(liveness.tie("its job") { _ in running.withLock { $0 = true }; release.pass(); return 1 })
        guard await Await.returns("start()", in: place, { batch.start() }),
              await Await.until(in: "a started batch", waitingFor: "its job running", hint: Self.submitHint,
                                unless: { jobCannotRun("its job", liveness) { running.current } }, { running.current })
        else { return }
        let whileBlocked = await Await.call("wait(timeout: .now() + 0.1)", in: place,
                                            hint: "wait(timeout:) must give up at its deadline.") { batch.wait(timeout: .now() + 0.1) }
        #expect(whileBlocked == .timedOut, "wait(timeout:) should return .timedOut while a job is still running.")
        release.open()
        let afterwards = await Await.call("wait(timeout: .now() + 5)", seconds: 6, in: place) { batch.wait(timeout: .now() + 5) }
        #expect(afterwards == .success, "wait(timeout:) should return .success once the job returned.")
    }
}
