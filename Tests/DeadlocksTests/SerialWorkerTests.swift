import Deadlocks
import Dispatch
import Foundation
import KataTestSupport
import Testing

/// A serial worker: one block at a time, in order; `sync` from its own queue runs inline instead
/// of waiting for itself; `isCurrent` tells this worker's queue from every other.
@Suite("SerialWorker", .exitIsAFailure)
struct SerialWorkerTests {
    static let selfWaitHint = "sync onto the serial queue the code is already running on waits for the block that is running, which is the caller itself. When isCurrent is true, run body inline."
    static let crashHint = "libdispatch stops the process when a thread calls sync onto the queue it is already running on (a trap: SIGILL on x86_64, SIGTRAP on arm64; on Apple platforms with the message \"dispatch_sync called on queue already owned by current thread\"): that sync would wait for itself. When isCurrent is true, run body inline instead of calling queue.sync."

    // MARK: Serial

    static let serialThreads = 4
    static let serialRounds = 60
    static let serialPlace = "sync and async from 4 threads"

    @Test("sync and async bodies run one at a time, on the worker's queue, async ones in order, and sync returns its body's value")
    func workerRunsSerially() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: SerialWorkerTests.serialPlace)
            SerialWorkerTests.manyThreadsOneQueue()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.serialPlace, crashHint: "A crash here usually means the worker's queue was used before init set it up.")
    }

    struct Record {
        var notCurrentInside = 0
        var currentOutside = 0
        var asyncRan: [[Int]] = Array(repeating: [], count: SerialWorkerTests.serialThreads)
        var wrongValues = 0
    }

    static func manyThreadsOneQueue() {
        let worker = SerialWorker(label: "kata.serial-worker")
        // First, by events: while one sync body is inside, an async body and a sync body from
        // another thread must stay out.
        let window = IntruderWindow()
        let windowDone = Watched.gang(2, in: serialPlace, hint: "A sync from another thread waits for the body that is running on the worker's queue, and nothing else.") { index, steps in
            if index == 0 {
                steps.enter("sync from a first thread")
                worker.sync { window.hold() }
            } else {
                steps.waitFor("the first thread's sync body starting")
                guard window.waitForHolder() else { return }
                steps.enter("async from a second thread")
                worker.async { window.enter("an async body") }
                steps.enter("sync from a second thread")
                worker.sync { window.enter("a sync body from another thread") }
            }
            steps.tick()
        }
        guard windowDone else { return }
        #expect(
            window.intrusions.isEmpty,
            "While one sync body was running, \(window.intrusions.joined(separator: " and ")) ran too: a serial worker runs one block at a time. Submit every body (sync and async) to one private serial DispatchQueue.")
        let meter = ConcurrencyMeter()
        let record = Locked(Record())
        @Sendable func body() {
            meter.measure {
                if !worker.isCurrent { record.withLock { $0.notCurrentInside += 1 } }
                spin(microseconds: 20)  // widens the window in which another body would be seen
            }
        }
        let finished = Watched.gang(serialThreads, in: serialPlace, hint: "A sync from another thread waits for the blocks ahead of it on the worker's queue; it must not wait for anything else.") { index, steps in
            for round in 0..<serialRounds {
                if worker.isCurrent { record.withLock { $0.currentOutside += 1 } }
                if round.isMultiple(of: 2) {
                    worker.async {
                        body()
                        record.withLock { $0.asyncRan[index].append(round) }
                    }
                } else {
                    let value = worker.sync { () -> Int in
                        body()
                        return round * 10 + index
                    }
                    if value != round * 10 + index { record.withLock { $0.wrongValues += 1 } }
                }
                steps.tick()
            }
            if worker.isCurrent { record.withLock { $0.currentOutside += 1 } }
        }
        guard finished else { return }
        // Every async body was submitted before its thread's last sync, so a serial queue (first
        // in, first out) has run them all by now; a little patience for other designs.
        let expectedAsync = serialRounds / 2
        Deadline.waitUntil(seconds: Deadline.promptSeconds, in: serialPlace, waitingFor: "every async body running",
                           hint: "async must submit body to the worker's queue, which runs it soon after.") {
            record.current.asyncRan.allSatisfy { $0.count == expectedAsync }
        }
        let seen = record.current
        #expect(
            meter.peak == 1,
            "Up to \(meter.peak) bodies were running at once: a serial worker runs one block at a time. Submit every body (sync and async) to one private serial DispatchQueue.")
        #expect(
            seen.notCurrentInside == 0,
            "isCurrent was false inside \(seen.notCurrentInside) of \(meter.totalEntries) bodies run by sync or async: inside the worker's own blocks it must be true (mark the queue with setSpecific(key:value:) and look for the mark with DispatchQueue.getSpecific(key:)).")
        #expect(
            seen.currentOutside == 0,
            "isCurrent was true \(seen.currentOutside) times on a thread that was not running a block of the worker: it must be true only on the worker's queue. A thread is not a queue: sync often runs its block on the calling thread, and async blocks run on any pool thread.")
        #expect(seen.wrongValues == 0, "sync should return what its body returns; it returned something else \(seen.wrongValues) times.")
        let outOfOrder = seen.asyncRan.filter { $0 != $0.sorted() }.count
        #expect(outOfOrder == 0, "For \(outOfOrder) of \(serialThreads) threads, async bodies ran in another order than they were submitted: a serial queue runs them first in, first out.")
    }

    // MARK: Re-entry

    static let nestedPlace = "sync from inside the worker's own blocks"

    @Test("sync called from the worker's own async or sync block runs inline instead of waiting for itself")
    func nestedSyncRunsInline() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: SerialWorkerTests.nestedPlace)
            SerialWorkerTests.syncInsideTheWorker()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.nestedPlace, crashHint: Self.crashHint)
    }

    struct Nested {
        var log: [String] = []
        var innerCurrent: [Bool] = []
        var value = 0
    }

    static func syncInsideTheWorker() {
        let worker = SerialWorker(label: "kata.reentrant-worker")
        let nested = Locked(Nested())
        let asyncDone = DispatchSemaphore(value: 0)
        // The course's "serial, sync in async" snippet, which deadlocks on a plain serial queue.
        let watched = Watched.onOneThread(in: nestedPlace) { steps in
            nested.withLock { $0.log.append("1") }
            steps.enter("async")
            worker.async {
                nested.withLock { $0.log.append("2") }
                let value = worker.sync { () -> Int in
                    nested.withLock {
                        $0.log.append("3")
                        $0.innerCurrent.append(worker.isCurrent)
                    }
                    return worker.sync { worker.isCurrent ? 7 : -7 }
                }
                nested.withLock {
                    $0.value = value
                    $0.log.append("4")
                }
                asyncDone.signal()
            }
            nested.withLock { $0.log.append("5") }
            steps.waitFor("the async block whose body calls sync, nested twice, finishing", ifStuck: selfWaitHint)
            // On a miss, the watcher (whose deadline ends first) reports it.
            guard asyncDone.wait(timeout: .now() + Deadline.promptSeconds + 1) == .success else { return }
            steps.enter("sync from another thread, whose body calls sync", ifStuck: selfWaitHint)
            let outer = worker.sync { () -> [Bool] in
                let inner = worker.sync { worker.isCurrent }
                return [worker.isCurrent, inner]
            }
            nested.withLock { $0.innerCurrent += outer }
        }
        guard watched else { return }
        let seen = nested.current
        let order = ["2", "3", "4"].map { seen.log.firstIndex(of: $0) ?? -1 }
        #expect(
            seen.log.sorted() == ["1", "2", "3", "4", "5"] && order == order.sorted() && !order.contains(-1),
            "The snippet printed \(seen.log.joined()): expected 1 and 5 from the caller, and 2, 3, 4 in that order from the async block (the nested sync runs inline, before the block goes on).")
        #expect(seen.value == 7, "sync inside sync inside the worker's async block should return the innermost body's value with isCurrent true (7), got \(seen.value).")
        #expect(
            seen.innerCurrent == [true, true, true],
            "isCurrent should be true inside sync bodies nested in the worker's own blocks; it was \(seen.innerCurrent).")
    }

    // MARK: Two workers, one label

    static let twinsPlace = "two workers with the same label"

    @Test("Two workers with the same label are told apart: each one's isCurrent is false on the other's queue, and sync from one onto the other waits its turn")
    func workersAreToldApart() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: SerialWorkerTests.twinsPlace)
            SerialWorkerTests.sameLabelTwoWorkers()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.twinsPlace, crashHint: Self.crashHint)
    }

    struct Twins {
        var outside: [Bool] = []
        var insideA: [Bool] = []  // a.isCurrent, b.isCurrent inside a.sync
        var insideB: [Bool] = []  // b.isCurrent, a.isCurrent inside b.sync called from a's queue
        var insideBAsync: [Bool] = []  // b.isCurrent, a.isCurrent inside b.async
        var bodyRanWhileBBusy = false
    }

    static func sameLabelTwoWorkers() {
        let a = SerialWorker(label: "kata.twin")
        let b = SerialWorker(label: "kata.twin")
        let twins = Locked(Twins())
        let bBusy = Locked(false)
        let callingB = DispatchSemaphore(value: 0)
        let bBodyRan = DispatchSemaphore(value: 0)
        let bAsyncDone = DispatchSemaphore(value: 0)
        let watched = Watched.onOneThread(in: twinsPlace, seconds: Deadline.promptSeconds + 1) { steps in
            twins.withLock { $0.outside = [a.isCurrent, b.isCurrent] }
            // b is busy with an async block until a's call of b.sync had its chance to (wrongly)
            // run its body at once.
            steps.enter("b.async")
            let caller = ObjectIdentifier(Thread.current)
            b.async {
                bBusy.withLock { $0 = true }
                twins.withLock { $0.insideBAsync = [b.isCurrent, a.isCurrent] }
                // A block that runs at once on the calling thread (no queue at all) must not
                // wait for what that thread does after async returns.
                let inline = ObjectIdentifier(Thread.current) == caller
                if !inline, callingB.wait(timeout: .now() + Deadline.promptSeconds) == .success {
                    if bBodyRan.wait(timeout: .now() + 0.1) == .success { bBodyRan.signal() }
                }
                bBusy.withLock { $0 = false }
                bAsyncDone.signal()
            }
            steps.enter("a.sync, whose body calls b.sync while b runs an async block", ifStuck: "b.sync called from a's queue should wait for b's own queue, nothing else.")
            a.sync {
                twins.withLock { $0.insideA = [a.isCurrent, b.isCurrent] }
                callingB.signal()
                b.sync {
                    let busy = bBusy.current
                    twins.withLock {
                        $0.insideB = [b.isCurrent, a.isCurrent]
                        $0.bodyRanWhileBBusy = busy
                    }
                    bBodyRan.signal()
                }
            }
            steps.waitFor("b's async block finishing")
            _ = bAsyncDone.wait(timeout: .now() + Deadline.promptSeconds)
        }
        guard watched else { return }
        let seen = twins.current
        #expect(seen.outside == [false, false], "On a thread that runs no worker block, a.isCurrent and b.isCurrent should both be false; they were \(seen.outside).")
        #expect(
            seen.insideA == [true, false],
            "Inside a.sync, a.isCurrent should be true and b.isCurrent false (b has the same label but is another queue); they were \(seen.insideA). Labels are not identities: mark each worker's queue with a value of its own under a DispatchSpecificKey.")
        #expect(
            seen.insideBAsync == [true, false],
            "Inside b's async block, b.isCurrent should be true and a.isCurrent false; they were \(seen.insideBAsync).")
        #expect(
            seen.insideB.first == true,
            "Inside b.sync called from a's queue, b.isCurrent should be true: that body runs on b's queue; it was \(seen.insideB.first.map(String.init) ?? "never run").")
        #expect(
            !seen.bodyRanWhileBBusy,
            "b.sync called from a's queue ran its body while b was still running an async block: b.sync must go through b's queue and wait its turn. It ran inline because b took a's queue for its own (same label?).")
    }
}
