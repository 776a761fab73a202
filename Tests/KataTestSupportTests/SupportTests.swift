import Dispatch
import Foundation
import KataTestSupport
import Testing

@Suite("KataTestSupport", .exitIsAFailure)
struct SupportTests {
    @Test("StartBarrier releases all parties together, round after round")
    func barrierReleasesTogether() {
        let barrier = StartBarrier(parties: 4)
        let meter = ConcurrencyMeter()
        let released = Locked(0)
        let ok = ThreadGang.run(4, in: "StartBarrier test") { _ in
            for _ in 0..<50 {
                if barrier.arrive() { released.withLock { $0 += 1 } }
            }
            meter.measure { usleep(10) }
        }
        #expect(ok)
        #expect(released.current == 200)
        #expect(!barrier.isBroken)
    }

    @Test("StartBarrier times out and stays broken when a party never comes")
    func barrierTimesOut() {
        let barrier = StartBarrier(parties: 2)
        #expect(barrier.arrive(seconds: 0.05) == false)
        #expect(barrier.isBroken)
        #expect(barrier.arrive(seconds: 5) == false, "a broken barrier answers at once")
    }

    @Test("Rendezvous succeeds when parties meet and fails at the shared deadline when they cannot")
    func rendezvous() {
        let meeting = Rendezvous(parties: 2, seconds: 5)
        let results = Locked([Bool]())
        ThreadGang.run(2, in: "Rendezvous test") { _ in
            let met = meeting.arriveAndWait()
            results.withLock { $0.append(met) }
        }
        #expect(results.current == [true, true])

        let lonely = Rendezvous(parties: 2, seconds: 0.05)
        #expect(lonely.arriveAndWait() == false)
        #expect(lonely.arrivals == 1)
    }

    @Test("ConcurrencyMeter records the peak of threads inside at once")
    func meterRecordsPeak() {
        let meter = ConcurrencyMeter()
        let together = Rendezvous(parties: 3, seconds: 5)
        ThreadGang.run(3, in: "ConcurrencyMeter test") { _ in
            meter.measure { _ = together.arriveAndWait() }
        }
        #expect(meter.peak == 3)
        #expect(meter.current == 0)
        #expect(meter.totalEntries == 3)
    }

    @Test("A missed deadline fails with 'Deadlock suspected in <place>'")
    func missedDeadlineIsReported() {
        #expect(
            DeadlockReport.message(in: "the pipeline", waitingFor: "the completion", seconds: 2)
                == "Deadlock suspected in the pipeline: the completion did not happen within 2 s.")
        withKnownIssue("the semaphore is never signalled") {
            Deadline.wait(for: DispatchSemaphore(value: 0), seconds: 0.05, in: "a test", waitingFor: "a signal")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("Deadlock suspected in a test") }
        }
        withKnownIssue("a thread that never returns") {
            ThreadGang.run(1, seconds: 0.05, in: "a stuck thread") { _ in Thread.sleep(forTimeInterval: 0.5) }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("Deadlock suspected in a stuck thread") }
        }
        #expect(Deadline.waitUntil(seconds: 1, in: "a test", waitingFor: "true") { true })
    }
}

@Suite("CallRecorder", .exitIsAFailure)
struct CallRecorderTests {
    @Test("CallRecorder counts calls, waits for the first with a deadline, and proves that none came")
    func recordsAndWaits() {
        let recorder = CallRecorder<Int>()
        #expect(!recorder.wasCalled(within: 0.02))
        withKnownIssue("nothing calls it") {
            recorder.waitForFirstCall(seconds: 0.05, in: "a silent completion", waitingFor: "a call")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("Deadlock suspected in a silent completion") }
        }
        ThreadGang.run(3, in: "three callers") { recorder.record($0) }
        #expect(recorder.waitForFirstCall(seconds: 1, in: "three callers", waitingFor: "a call"))
        #expect(recorder.calls.sorted() == [0, 1, 2])
        #expect(recorder.wasCalled(within: 0))
    }
}
