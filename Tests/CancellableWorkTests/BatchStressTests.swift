import CancellableWork
import Dispatch
import Foundation
import KataTestSupport
import Testing

/// Many batches, jobs of random length, cancels from other threads at random moments, and
/// completions registered with `notify` from four threads at once:
/// every outcome must tell the truth about its job, and every completion must run exactly once.
/// Isolated so that a crash is a failed check.
@Suite("CancellableBatch under stress", .exitIsAFailure)
struct BatchStressTests {
    static let batches = 40
    static let jobsPerBatch = 15
    /// Threads that register completions at the same moment, and completions per thread and batch.
    static let notifiers = 4
    static let notifiesPerBatch = 10

    @Test("40 batches with random cancels from other threads: each body runs at most once, every outcome matches what happened, and every completion registered from 4 threads at once runs once")
    func outcomesMatchUnderRandomCancels() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: 30, in: "40 batches with random cancels")
            BatchStressTests.run()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "40 batches with random cancels",
            crashHint: "A trap here usually means a DispatchGroup was left more often than entered, or the batch's bookkeeping was changed by two threads at once without a lock.")
    }

    /// A completion registered while its batch may be ending, and what it was called with.
    final class Latecomer: Sendable {
        let batch: Int
        let calls = Locked([[JobOutcome<Int>]]())
        init(batch: Int) { self.batch = batch }
    }

    struct JobLog {
        var runs = 0
        var sawCancel = false
    }

    static func run() {
        let queue = DispatchQueue(label: "jobs", attributes: .concurrent)
        let logs = Locked([[JobLog]](repeating: [JobLog](repeating: JobLog(), count: jobsPerBatch), count: batches))
        let cancelled = Locked([Set<Int>](repeating: [], count: batches))
        var probes: [NotifyProbe<Int>] = []
        var all: [CancellableBatch<Int>] = []
        for b in 0..<batches {
            let batch = CancellableBatch<Int>(queue: queue)
            for j in 0..<jobsPerBatch {
                let length = Int.random(in: 0...15)  // × 100 µs
                batch.add { token in
                    logs.withLock { $0[b][j].runs += 1 }
                    for _ in 0..<length {
                        if token.isCancelled {
                            logs.withLock { $0[b][j].sawCancel = true }
                            return nil
                        }
                        usleep(100)
                    }
                    return b * 100 + j
                }
            }
            probes.append(NotifyProbe<Int>())
            all.append(batch)
        }
        let batchesToCancel = all
        let probesToRegister = probes
        guard Await.blockingCall("40 notify(queue:_:) calls", in: "40 batches", {
            for (probe, batch) in zip(probesToRegister, batchesToCancel) { probe.register(on: batch) }
        }) else { return }
        // Four threads register completions on the same batch at the same moment (one round per
        // batch, released together): the batch's list of waiting completions is shared by every
        // thread that calls notify, and a completion lost there never runs.
        let extra = (0..<notifiers).map { _ in (0..<batches * notifiesPerBatch).map { _ in NotifyProbe<Int>() } }
        let together = StartBarrier(parties: notifiers)
        let registered = Locked(0)
        let registering = (0..<notifiers).map { thread in
            ThreadGang.spawn {
                for b in 0..<batches {
                    // The round waits for every thread, however late a busy machine lets one come.
                    guard together.arrive(seconds: 60) else { return }
                    for k in 0..<notifiesPerBatch {
                        extra[thread][b * notifiesPerBatch + k].register(on: batchesToCancel[b])
                        registered.withLock { $0 += 1 }
                    }
                }
            }
        }
        guard Deadline.waitUntil(quiet: Deadline.promptSeconds, in: "the threads calling notify",
                                 waitingFor: "\(notifiers * batches * notifiesPerBatch) notify(queue:_:) calls returning",
                                 hint: "notify only registers the completion; it must return at once.",
                                 progress: { registered.current }, { registering.allSatisfy { $0.wait(timeout: .now()) == .success } })
        else { return }
        let cancellers = (0..<2).map { _ in
            ThreadGang.spawn {
                for _ in 0..<150 {
                    let b = Int.random(in: 0..<batches)
                    if Int.random(in: 0..<20) == 0 {
                        cancelled.withLock { $0[b].formUnion(0..<jobsPerBatch) }
                        batchesToCancel[b].cancelAll()
                    } else {
                        let j = Int.random(in: 0..<jobsPerBatch)
                        cancelled.withLock { _ = $0[b].insert(j) }
                        batchesToCancel[b].cancel(j)
                    }
                    usleep(UInt32.random(in: 0...400))
                }
            }
        }
        // Three threads keep registering completions on batches that have not ended yet, so that
        // some registrations come at the moment a batch ends: each of those must run once too
        // (checking "ended?" and adding to the waiting list is one step, under the lock).
        let latecomers = (0..<3).map { _ in Locked([Latecomer]()) }
        let lateQueue = DispatchQueue(label: "late-completions", attributes: .concurrent)
        let allEnded = Locked(false)
        let mainProbes = probes
        let registeringLate = latecomers.map { list in
            ThreadGang.spawn {
                var count = 0
                while !allEnded.current && count < 3_000 {
                    for b in 0..<batches where !mainProbes[b].wasCalled {
                        let latecomer = Latecomer(batch: b)
                        batchesToCancel[b].notify(queue: lateQueue) { outcomes in latecomer.calls.withLock { $0.append(outcomes) } }
                        list.withLock { $0.append(latecomer) }
                        count += 1
                    }
                    if mainProbes.allSatisfy(\.wasCalled) { break }
                    sched_yield()
                }
            }
        }
        let starting = ThreadGang.spawn {
            for batch in batchesToCancel {
                batch.start()
                usleep(UInt32.random(in: 0...300))
            }
        }
        guard Deadline.wait(for: starting, seconds: Deadline.promptSeconds, in: "starting 40 batches", waitingFor: "40 start() calls returning",
                            hint: "start() only submits the jobs; it must not wait for them.") else { return }
        // Every wait below goes on while the batches move (a body runs, a cancel returns, a
        // completion runs) and gives up after `quiet` seconds of nothing: on a loaded machine a
        // correct batch may take far longer than the second or so it takes here idle.
        let quiet = Deadline.promptSeconds
        let late = { latecomers.flatMap(\.current) }
        let progress = {
            logs.current.joined().reduce(0) { $0 + $1.runs } + probes.filter(\.wasCalled).count
                + extra.joined().filter(\.wasCalled).count + cancelled.current.reduce(0) { $0 + $1.count }
        }
        func done(_ group: DispatchGroup) -> Bool { group.wait(timeout: .now()) == .success }
        guard Deadline.waitUntil(quiet: quiet, in: "the cancelling threads", waitingFor: "300 cancel(_:) and cancelAll() calls returning",
                                 progress: progress, { cancellers.allSatisfy(done) }) else { return }
        guard Deadline.waitUntil(quiet: quiet, in: "40 batches", waitingFor: "every batch's notify completion",
                                 hint: NotifyProbe<Int>.hint,
                                 progress: progress, { probes.allSatisfy(\.wasCalled) }) else { return }
        allEnded.withLock { $0 = true }
        guard Deadline.waitUntil(quiet: quiet, in: "the threads calling notify while batches end", waitingFor: "their notify(queue:_:) calls returning",
                                 progress: { progress() + late().count }, { registeringLate.allSatisfy(done) }) else { return }
        let lateOnes = late()
        // Every extra completion was registered: a correct batch calls each of them soon.
        let extraCalled = Deadline.waitUntil(quiet: quiet, in: "40 batches with completions registered from 4 threads",
                                             waitingFor: "every completion registered with notify running",
                                             hint: "A completion registered while another thread registers one too, or while the batch ends, must not be lost: protect the list of waiting completions with the lock.",
                                             progress: { progress() + lateOnes.filter { !$0.calls.current.isEmpty }.count }) {
            extra.allSatisfy { $0.allSatisfy(\.wasCalled) } && lateOnes.allSatisfy { !$0.calls.current.isEmpty }
        }
        usleep(100_000)  // a second notify would arrive by now

        let seen = logs.current
        let cancels = cancelled.current
        var problems: [String] = []
        for (b, probe) in probes.enumerated() {
            let calls = probe.calls
            if calls.count != 1 { problems.append("batch \(b): notify ran \(calls.count) times"); continue }
            let outcomes = calls[0]
            if outcomes.count != jobsPerBatch { problems.append("batch \(b): \(outcomes.count) outcomes for \(jobsPerBatch) jobs"); continue }
            for (j, outcome) in outcomes.enumerated() {
                let log = seen[b][j]
                if log.runs > 1 { problems.append("batch \(b) job \(j): body ran \(log.runs) times") }
                switch outcome {
                case .completed(let value):
                    if log.runs != 1 || value != b * 100 + j { problems.append("batch \(b) job \(j): .completed(\(value)) but the body ran \(log.runs) times and returned \(b * 100 + j)") }
                case .cancelledWhileRunning:
                    if log.runs != 1 || !log.sawCancel { problems.append("batch \(b) job \(j): .cancelledWhileRunning but the body \(log.runs == 0 ? "never ran" : "did not stop for a cancel")") }
                case .cancelledBeforeStart:
                    if log.runs != 0 { problems.append("batch \(b) job \(j): .cancelledBeforeStart but the body ran") }
                    if !cancels[b].contains(j) { problems.append("batch \(b) job \(j): .cancelledBeforeStart but it was never cancelled") }
                }
            }
        }
        if extraCalled {
            for latecomer in lateOnes {
                let calls = latecomer.calls.current
                if calls.count != 1 || calls.first.map(describe) != probes[latecomer.batch].calls.first.map(describe) {
                    problems.append("batch \(latecomer.batch): a completion registered while it was ending ran \(calls.count) times\(calls.count == 1 ? " with other outcomes" : "")")
                }
            }
            for (thread, list) in extra.enumerated() {
                for (index, probe) in list.enumerated() {
                    let b = index / notifiesPerBatch
                    let expected = probes[b].calls.first.map(describe)
                    if probe.calls.count != 1 { problems.append("batch \(b): a completion registered from thread \(thread) ran \(probe.calls.count) times") }
                    else if probe.calls.first.map(describe) != expected { problems.append("batch \(b): a completion registered from thread \(thread) got other outcomes than the first one") }
                }
            }
        } else {
            let lost = extra.joined().filter { !$0.wasCalled }.count
            if lost > 0 { problems.append("\(lost) of \(notifiers * batches * notifiesPerBatch) completions registered from 4 threads at once never ran") }
            let lostLate = lateOnes.filter { $0.calls.current.isEmpty }.count
            if lostLate > 0 { problems.append("\(lostLate) of \(lateOnes.count) completions registered while batches were ending never ran") }
        }
        #expect(problems.isEmpty, "\(problems.count) problems in 40 batches; first: \(problems.first ?? ""). An outcome is decided by the job itself (whether its body ran, and what it returned), and every completion registered with notify runs exactly once, whichever thread registered it.")
    }
}
