import CancellableWork
import Dispatch
import Foundation
import KataTestSupport
import Testing

/// DispatchWorkItem.cancel() only stops an item that has not started; the batch has to count
/// every job exactly once either way. The classic bug calls `group.leave()` by hand for every
/// cancelled item: for one that had already started, its own `leave()` comes too, the group is
/// unbalanced, and the notify fires early or the process traps.
@Suite("CancellableBatch", .exitIsAFailure)
struct BatchTests {
    @Test("Cancelled before start: the body never runs, the outcome is .cancelledBeforeStart, and the batch still ends")
    func cancelledBeforeStart() {
        let serial = DispatchQueue(label: "jobs")
        let batch = CancellableBatch<Int>(queue: serial)
        let firstRunning = DispatchSemaphore(value: 0)
        let release = Gate()
        let bodiesRun = Locked([Int]())
        batch.add { _ in bodiesRun.withLock { $0.append(0) }; firstRunning.signal(); release.pass(); return 0 }
        batch.add { _ in bodiesRun.withLock { $0.append(1) }; return 1 }  // waits behind job 0 on the serial queue
        batch.add { _ in bodiesRun.withLock { $0.append(2) }; return 2 }
        batch.cancel(2)  // before start() is even called
        let probe = NotifyProbe(batch)
        batch.start()
        guard Deadline.wait(for: firstRunning, seconds: Deadline.promptSeconds, in: "a started batch", waitingFor: "its first job running",
                            hint: "start() should submit each job to the queue as a DispatchWorkItem.") else { return }
        batch.cancel(1)
        release.open()
        guard probe.waitForCall(in: "a batch with jobs cancelled before they started") else { return }
        #expect(bodiesRun.current == [0], "Only job 0's body should have run; bodies run: \(bodiesRun.current). A job cancelled before it started must never run its body (cancel its DispatchWorkItem, and check the token before calling the body).")
        let outcomes = probe.calls.first ?? []
        #expect(describe(outcomes) == describe([JobOutcome<Int>.completed(0), .cancelledBeforeStart, .cancelledBeforeStart]),
                "Outcomes were \(describe(outcomes)); expected [.completed(0), .cancelledBeforeStart, .cancelledBeforeStart].")
        #expect(batch.wait(timeout: .now() + 1) == .success, "wait(timeout:) should return .success once the batch has ended.")
    }

    @Test("Cancelled while running: the body sees the token, the outcome is .cancelledWhileRunning, and the batch ends only after the body returned")
    func cancelledWhileRunning() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "cancelling a running job")
            BatchTests.cancelARunningJob()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "cancelling a running job",
            crashHint: "A trap here usually means DispatchGroup.leave() was called more often than enter(): a job cancelled while it runs must be counted once, when its body returns, not again by cancel().")
    }

    static func cancelARunningJob() {
        let batch = CancellableBatch<String>(queue: DispatchQueue(label: "jobs", attributes: .concurrent))
        let running = DispatchSemaphore(value: 0)
        let mayReturn = Gate()
        let sawCancel = Locked(false)
        let returned = Locked(false)
        batch.add { token in
            running.signal()
            sawCancel.withLock { $0 = waitForCancel(token) }
            mayReturn.pass()
            returned.withLock { $0 = true }
            return nil
        }
        batch.add { _ in "done" }
        let probe = NotifyProbe(batch)
        batch.start()
        guard Deadline.wait(for: running, seconds: Deadline.promptSeconds, in: "a started batch", waitingFor: "the job running",
                            hint: "start() should submit each job to the queue as a DispatchWorkItem.") else { return }
        batch.cancel(0)
        Deadline.waitUntil(seconds: Deadline.promptSeconds, in: "a running job", waitingFor: "the job seeing its token cancelled",
                           hint: "cancel(_:) must set the job's cancellation flag; the token the job received reads it.") { sawCancel.current }
        // The body has seen the cancel but has not returned: the batch must not be over.
        #expect(!probe.wasCalled(within: 0.2), "notify fired while a cancelled job's body was still running: the batch ends only when every body has returned. Do not leave() the group for a job that has started: Dispatch leaves it when the item returns.")
        #expect(batch.wait(timeout: .now() + 0.05) == .timedOut, "wait(timeout:) returned .success while a job's body was still running.")
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
    func notifyOnceInAddOrder() {
        let batch = CancellableBatch<Int>(queue: DispatchQueue(label: "jobs", attributes: .concurrent))
        for index in 0..<20 {
            // Later jobs finish first, so completion order is the reverse of add order.
            batch.add { _ in usleep(UInt32((20 - index) * 500)); return index * 10 }
        }
        let early = NotifyProbe(batch)
        batch.start()
        guard early.waitForCall(in: "a batch of 20 jobs") else { return }
        #expect(batch.wait(timeout: .now() + 1) == .success, "wait(timeout:) should return .success once the batch has ended.")
        let late = NotifyProbe(batch)
        late.waitForCall(seconds: Deadline.promptSeconds, in: "notify registered after the batch ended")
        usleep(100_000)
        let expected = describe((0..<20).map { JobOutcome<Int>.completed($0 * 10) })
        #expect(early.calls.count == 1, "notify's completion ran \(early.calls.count) times; it must run exactly once.")
        #expect(early.calls.first.map(describe) == expected,
                "Outcomes were \(early.calls.first.map(describe) ?? "none"); expected them in add order: \(expected). Store each outcome at its job's index, not in the order jobs finish.")
        #expect(early.onQueue == [true], "notify's completion must run on the queue passed to notify(queue:_:).")
        #expect(late.calls.count == 1 && late.calls.first.map(describe) == expected,
                "A completion registered after the batch ended should be called once, with the same outcomes.")
    }

    @Test("An empty batch and a batch cancelled before start both end: notify fires once, wait returns .success")
    func emptyAndCancelledBatchesEnd() {
        let empty = CancellableBatch<Int>(queue: DispatchQueue(label: "jobs"))
        #expect(empty.wait(timeout: .now() + 0.05) == .timedOut, "wait(timeout:) returned .success before start(): a batch that has not started has not ended.")
        let emptyProbe = NotifyProbe(empty)
        #expect(!emptyProbe.wasCalled(within: 0.05), "notify fired before start(): the batch has not ended yet.")
        empty.start()
        emptyProbe.waitForCall(seconds: Deadline.promptSeconds, in: "an empty batch")
        #expect(empty.wait(timeout: .now() + 1) == .success, "An empty batch ends as soon as it starts: wait should return .success.")

        let all = CancellableBatch<Int>(queue: DispatchQueue(label: "jobs"))
        let ran = Locked(0)
        for index in 0..<5 { all.add { _ in ran.withLock { $0 += 1 }; return index } }
        let allProbe = NotifyProbe(all)
        all.cancelAll()
        all.start()
        guard allProbe.waitForCall(seconds: Deadline.promptSeconds, in: "a batch cancelled before start") else { return }
        usleep(50_000)
        #expect(ran.current == 0, "\(ran.current) bodies ran although cancelAll() came before start().")
        #expect(allProbe.calls.count == 1, "notify's completion ran \(allProbe.calls.count) times; it must run exactly once.")
        #expect(allProbe.calls.first.map(describe) == describe([JobOutcome<Int>](repeating: .cancelledBeforeStart, count: 5)),
                "Every job should be .cancelledBeforeStart; got \(allProbe.calls.first.map(describe) ?? "none").")
        #expect(emptyProbe.calls.count == 1 && emptyProbe.calls.first?.isEmpty == true,
                "An empty batch should notify once with no outcomes; got \(emptyProbe.calls.count) calls.")
    }

    @Test("wait(timeout:) returns .timedOut while a job is still blocked, then .success once it returns")
    func waitTimesOutWhileBlocked() {
        let batch = CancellableBatch<Int>(queue: DispatchQueue(label: "jobs"))
        let running = DispatchSemaphore(value: 0)
        let release = Gate()
        batch.add { _ in running.signal(); release.pass(); return 1 }
        batch.start()
        guard Deadline.wait(for: running, seconds: Deadline.promptSeconds, in: "a started batch", waitingFor: "its job running",
                            hint: "start() should submit each job to the queue as a DispatchWorkItem.") else { return }
        #expect(batch.wait(timeout: .now() + 0.1) == .timedOut, "wait(timeout:) should return .timedOut while a job is still running.")
        release.open()
        #expect(batch.wait(timeout: .now() + 3) == .success, "wait(timeout:) should return .success once the job returned.")
    }
}
