import Dispatch
import Foundation
import GatesAndOnce
import KataTestSupport
import Testing

/// Operations a check adds to a gate, and what became of each: started (its work ran), finished
/// (its completion block ran) cancelled or not; and whether two ever ran at once. The log holds
/// the operations weakly, so that a check sees at once that a gate dropped them.
final class OperationLog: @unchecked Sendable {
    let started = Locked([Int]())
    /// Number → whether the operation was cancelled, when its completion block ran.
    let ended = Locked([Int: Bool]())
    let meter = ConcurrencyMeter()
    private let made = Locked([Int: Weak<BlockOperation>]())

    /// A new operation numbered `number`; `body` runs inside its work, after it is recorded.
    func make(_ number: Int, body: @escaping @Sendable () -> Void = {}) -> BlockOperation {
        let operation = BlockOperation { [self] in
            meter.measure {
                started.withLock { $0.append(number) }
                spin(microseconds: 5)
                body()
            }
        }
        let weak = Weak(operation)
        operation.completionBlock = { [ended] in
            let cancelled = weak.value?.isCancelled ?? false
            ended.withLock { $0[number] = cancelled }
        }
        made.withLock { $0[number] = weak }
        return operation
    }

    var madeCount: Int { made.current.count }
    var finishedCount: Int { ended.current.count }

    /// Why the check can stop waiting: operations that never finished and that nobody holds any more.
    func dropped(what: String) -> String? {
        // Which are freed first, then which finished: a completion block records its operation
        // before the operation is released, so a freed operation missing from `ended` read
        // afterwards was lost for good (read the other way round, one finishing in between looks lost).
        let freed = made.current.filter { $0.value.value == nil }.map(\.key)
        let finished = ended.current
        let lost = freed.filter { finished[$0] == nil }
        guard !lost.isEmpty else { return nil }
        return "\(what): \(lost.count) operation(s) (\(lost.sorted().prefix(6).map(String.init).joined(separator: ", "))) never finished, and nothing holds them any more (the gate dropped them). addOperation must add each operation to the gate's OperationQueue."
    }
}

/// The gate on an `OperationQueue`: `isSuspended` holds operations back, a refusal cancels them
/// all (they still finish), a pause does not touch the operation that is executing, and the flag
/// is a flag: no count to balance. Isolated: a learner may build it on a suspended DispatchQueue.
@Suite("OperationGate", .exitIsAFailure)
struct OperationGateTests {
    static let crashHint = "If your gate suspends a DispatchQueue: libdispatch traps on one resume() too many and on a queue released while suspended. OperationQueue.isSuspended has neither trap: it is a flag."

    // MARK: Waits, then runs in order

    static let runsPlace = "operations added before open(granted: true)"

    @Test("Operations added before open() wait; open(granted: true) from 4 threads at once runs them all, once, in order, one at a time")
    func operationsWaitThenRunInOrder() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: Patience.watchdog, in: OperationGateTests.runsPlace)
            OperationGateTests.waitThenRun()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.runsPlace, crashHint: Self.crashHint)
    }

    static func waitThenRun() {
        let log = OperationLog()
        let gate = OperationGate()
        // Operations 0 and 30 stay inside their work until another operation starts, or for
        // `overlapWindow`: a queue that runs more than one at a time starts the next meanwhile
        // (an operation that lasts microseconds is usually over before the next one starts).
        let overlapped = Locked([Int]())
        for number in 0..<30 { gate.addOperation(log.make(number, body: waitingForAnOverlap(number, log, overlapped))) }
        if Deadline.happens(within: quietWindow, { !log.started.current.isEmpty }) {
            Issue.record("\(log.started.current.count) operation(s) started before open() was called: a closed gate keeps its queue suspended (isSuspended = true in init).")
            return
        }
        guard Patience.gang(4, in: runsPlace, { _ in
            gate.open(granted: true)
            gate.open(granted: true)
        }) else { return }
        guard waitUntil(in: runsPlace, waitingFor: "the 30 operations finishing after open(granted: true)",
                        hint: "open(granted: true) lets the queue go: isSuspended = false.",
                        unless: { log.dropped(what: "After open(granted: true)") }, progress: { log.finishedCount }, { log.finishedCount >= 30 })
        else { return }
        for number in 30..<35 { gate.addOperation(log.make(number, body: waitingForAnOverlap(number, log, overlapped))) }
        guard waitUntil(in: runsPlace, waitingFor: "5 operations added after the gate opened finishing",
                        hint: "Operations added to an open gate run too.",
                        unless: { log.dropped(what: "Added to an open gate") }, progress: { log.finishedCount }, { log.finishedCount >= 35 })
        else { return }
        if let first = overlapped.current.first {
            Issue.record("Another operation started while operation \(first) was still running: the gate's queue runs more than one operation at a time. OperationQueue runs as many as it likes by default: set maxConcurrentOperationCount = 1 for one at a time, in the order added.")
            return
        }
        let started = log.started.current
        #expect(started == Array(0..<35), "30 operations added before open(granted: true) and 5 after it should each run once, in the order added; they ran in this order: \(started.prefix(12).map(String.init).joined(separator: ", "))…. One operation at a time (maxConcurrentOperationCount = 1) runs them first in, first out.")
        #expect(log.meter.peak == 1, "Up to \(log.meter.peak) operations ran at the same time: the gate's queue runs one at a time (maxConcurrentOperationCount = 1).")
    }

    /// How long operations 0 and 30 of `waitThenRun` wait for another operation to start, in
    /// heartbeat time: on a queue that runs several at once, the next one starts within a
    /// millisecond here, also with the other core busy.
    static let overlapWindow = 0.25

    /// The body of operation `number` in `waitThenRun`: for 0 and 30, waits until another
    /// operation starts (recorded in `overlapped`) or `overlapWindow` passed; nothing for the others.
    static func waitingForAnOverlap(_ number: Int, _ log: OperationLog, _ overlapped: Locked<[Int]>) -> @Sendable () -> Void {
        guard number == 0 || number == 30 else { return {} }
        return {
            // The window is counted in heartbeat time: on a machine so busy that this process
            // barely runs, a concurrent queue's next operation may take longer to start.
            let before = log.started.current.count
            let began = Heartbeat.mark()
            while Heartbeat.elapsed(since: began) < overlapWindow {
                if log.started.current.count > before {
                    overlapped.withLock { $0.append(number) }
                    return
                }
                usleep(500)
            }
        }
    }

    // MARK: Refusal

    static let refusalPlace = "open(granted: false) while operations are being added"

    @Test("open(granted: false), even while 3 threads add operations, cancels every operation: each finishes without running its work")
    func refusalCancelsEveryOperation() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: Patience.watchdog, in: OperationGateTests.refusalPlace)
            OperationGateTests.refusal()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.refusalPlace, crashHint: Self.crashHint)
    }

    static func refusal() {
        let log = OperationLog()
        let gate = OperationGate()
        for number in 0..<20 { gate.addOperation(log.make(number)) }
        // Thread 0 refuses while threads 1 to 3 add 50 operations each.
        guard Patience.call("open(granted: false) while 3 threads add operations", in: refusalPlace, {
            Patience.gang(4, in: refusalPlace) { index in
                if index == 0 {
                    gate.open(granted: false)
                } else {
                    for number in 0..<50 { gate.addOperation(log.make(index * 100 + number)) }
                }
            }
        }) else { return }
        for number in 900..<905 { gate.addOperation(log.make(number)) }
        let total = 20 + 150 + 5
        guard waitUntil(in: refusalPlace, waitingFor: "the \(total) refused operations finishing",
                        hint: "A cancelled operation in a suspended queue never finishes: the queue must start it, so that it sees isCancelled and finishes. Cancel them all, then set isSuspended = false.",
                        unless: { log.dropped(what: "After open(granted: false)") },
                        progress: { log.finishedCount }, { log.finishedCount >= total || !log.started.current.isEmpty })
        else { return }
        let ran = log.started.current
        #expect(ran.isEmpty, "After open(granted: false), \(ran.count) operation(s) ran their work (operations \(ran.prefix(5).map(String.init).joined(separator: ", "))): a refusal cancels every operation before the queue may start one, and cancels each one added later, also one added while the refusal is under way (decide and add under one lock).")
        let notCancelled = log.ended.current.values.filter { !$0 }.count
        #expect(notCancelled == 0, "\(notCancelled) of \(total) operations were not cancelled after open(granted: false): the refusal is told to each operation through isCancelled.")
        guard ran.isEmpty, notCancelled == 0 else { return }
        guard interruptedRefusals(stopping: .refuser) else { return }
        interruptedRefusals(stopping: .adder)
    }

    /// Which call the signal stops in `interruptedRefusals`.
    enum Stopped {
        /// The thread calling `open(granted: false)`.
        case refuser
        /// The thread calling `addOperation`.
        case adder
    }

    /// Then fresh gates, 400 at a time until 100 interruptions (or `Patience.outer` / 4): one thread is stopped by
    /// a signal at whatever instruction its call had reached (see `Interrupter`) while the other
    /// acts. `.refuser`: the refusing thread stops, with an operation queued, and the other waits
    /// half a millisecond for that operation to start (a refusal that lets the queue go before it cancels
    /// is caught in that gap). `.adder`: the adding thread stops, and the other refuses the gate (an
    /// add that looks at the gate under the lock and adds after unlocking adds an operation that
    /// nobody cancels). Returns false once it recorded a failure.
    @discardableResult
    static func interruptedRefusals(stopping stopped: Stopped) -> Bool {
        let roundSize = 400, wanted = 100
        var interruptions = 0
        // Bounded by the count, not the clock: on a busy machine 0.6 s held a dozen interruptions.
        let end = DispatchTime.now() + Patience.outer / 4
        for round in 0..<100 where interruptions < wanted && DispatchTime.now() < end {
            let log = OperationLog()
            let gates = (0..<roundSize).map { _ in OperationGate() }
            let operations = (0..<roundSize).map { log.make($0) }
            if stopped == .refuser {
                for (gate, operation) in zip(gates, operations) { gate.addOperation(operation) }
            }
            guard let (reached, acted) = Interrupter.run(
                count: roundSize, interruptions: wanted - interruptions, seconds: 0.5, quiet: Patience.interruptedQuiet, in: refusalPlace,
                victim: { number in
                    switch stopped {
                    case .refuser: gates[number].open(granted: false)
                    case .adder: gates[number].addOperation(operations[number])
                    }
                },
                intruder: { number in
                    switch stopped {
                    case .refuser: _ = Deadline.happens(within: 0.0005) { log.started.current.contains(number) }
                    case .adder: gates[number].open(granted: false)
                    }
                })
            else { return false }
            interruptions += acted
            // Every gate refused, and every operation added, whatever the victim reached.
            for (number, gate) in gates.enumerated() {
                gate.open(granted: false)
                if stopped == .adder, number >= reached { gate.addOperation(operations[number]) }
            }
            guard waitUntil(in: refusalPlace, waitingFor: "the \(roundSize) refused operations of round \(round + 1) finishing",
                            unless: { log.dropped(what: "After open(granted: false)") },
                            progress: { log.finishedCount }, { log.finishedCount >= roundSize || !log.started.current.isEmpty })
            else { return false }
            let ran = log.started.current
            guard ran.isEmpty else {
                let when = stopped == .refuser
                    ? "open(granted: false) was stopped for a moment in the middle of its call (by a signal), and the queue started a refused operation meanwhile: the refusal let the queue go before it cancelled the operations. Cancel them all first, then set isSuspended = false."
                    : "addOperation was stopped for a moment in the middle of its call (by a signal) while another thread refused the gate, and the operation it then added ran: it looked at the gate under the lock and added after unlocking. Decide and add under one lock."
                Issue.record("\(ran.count) refused operation(s) ran their work. \(when)")
                return false
            }
        }
        return true
    }

    // MARK: Pause

    static let pausePlace = "pause() while an operation runs"

    @Test("pause() lets the executing operation finish and holds the next; two pauses need one resume(); resume() never opens a closed gate")
    func pauseLetsTheRunningOperationFinish() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: Patience.watchdog, in: OperationGateTests.pausePlace)
            OperationGateTests.pauseWhileRunning()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.pausePlace, crashHint: Self.crashHint)
    }

    static func pauseWhileRunning() {
        let log = OperationLog()
        let gate = OperationGate()
        // resume() on a gate nobody opened: permission is not a pause.
        guard Patience.call("resume() before open()", in: pausePlace, { gate.resume() }) else { return }
        gate.addOperation(log.make(0))
        if Deadline.happens(within: quietWindow, { !log.started.current.isEmpty }) {
            Issue.record("resume() on a gate that was never opened let an operation run: resume() ends a pause, it does not grant access. Keep the decision and the pause apart: suspended = not granted, or paused.")
            return
        }
        gate.open(granted: true)
        guard waitUntil(in: pausePlace, waitingFor: "the first operation finishing after open(granted: true)",
                        hint: "open(granted: true) lets the queue go: isSuspended = false.",
                        unless: { log.dropped(what: "After open(granted: true)") }, progress: { log.finishedCount }, { log.finishedCount >= 1 })
        else { return }

        // Operation 1 runs until the check releases it; operation 2 waits behind it.
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finishedWork = Locked(false)
        let first = log.make(1) {
            inside.signal()
            release.wait()  // held until the check lets go (the watchdog ends a check that never does)
            finishedWork.withLock { $0 = true }
        }
        // Whether operation 1 was still running when operation 2 started: then the cause is not the pause.
        let secondBeside = Locked<Bool?>(nil)
        gate.addOperation(first)
        gate.addOperation(log.make(2) { secondBeside.withLock { $0 = !finishedWork.current } })
        guard waitUntil(in: pausePlace, waitingFor: "operation 1 starting", { inside.wait(timeout: .now()) == .success }) else { return }
        guard Patience.call("pause() while operation 1 runs", in: pausePlace,
                                 hint: "pause() must not wait for the executing operation (no waitUntilAllOperationsAreFinished): it only stops the queue from starting the next.",
                                 { gate.pause(); gate.pause() })
        else { release.signal(); return }
        release.signal()
        guard waitUntil(in: pausePlace, waitingFor: "operation 1 finishing after pause()",
                        hint: "Pausing does not stop an operation that is executing: it runs to its end.", { first.isFinished })
        else { return }
        #expect(finishedWork.current && !first.isCancelled, "pause() cancelled the executing operation or cut its work short: suspending a queue only stops it from starting operations; the one that runs goes on to its end.")
        if Deadline.happens(within: quietWindow, { log.started.current.contains(2) }) {
            // Operation 2 records it in its work, just after it is logged as started.
            _ = Deadline.happens(within: 0.5) { secondBeside.current != nil }
            if secondBeside.current == true {
                Issue.record("Operation 2 started while operation 1 was still running (before or during the pause): the gate's queue runs more than one operation at a time. Set maxConcurrentOperationCount = 1: one at a time, in the order added.")
                return
            }
            Issue.record("Operation 2 started while the gate was paused (after operation 1 finished). Two likely causes: pause() did not set isSuspended = true (the queue starts no operation until resume()), or the queue runs several operations at once (maxConcurrentOperationCount is not 1), so operation 2 was already handed to a thread before the pause.")
            return
        }
        guard Patience.call("resume()", in: pausePlace, { gate.resume() }) else { return }
        _ = waitUntil(in: pausePlace, waitingFor: "operation 2 running after pause(), pause(), resume()",
                      hint: "isSuspended is a flag, not a counter: two pauses are one pause, and one resume() ends it. A gate that counts pauses (or suspends a DispatchQueue twice) stays stopped.",
                      progress: { log.finishedCount }, { log.finishedCount >= 3 })
    }

    // MARK: Released while closed

    static let releasePlace = "releasing a closed gate"

    @Test("A gate released while still closed does not crash, and each of its operations finishes, cancelled, without running")
    func releasedGateRefusesItsOperations() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: Patience.watchdog, in: OperationGateTests.releasePlace)
            OperationGateTests.releaseClosed()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.releasePlace, crashHint: Self.crashHint)
    }

    static func releaseClosed() {
        let log = OperationLog()
        let freed = (0..<10).map { _ in Weak<OperationGate>() }
        for number in 0..<10 {
            let gate = OperationGate()
            freed[number].value = gate
            for item in 0..<3 { gate.addOperation(log.make(number * 10 + item)) }
        }
        guard waitUntil(in: releasePlace, waitingFor: "10 released gates being freed",
                        hint: "Something keeps a released gate alive (a closure capturing self strongly).", { freed.allSatisfy { $0.value == nil } })
        else { return }
        guard waitUntil(in: releasePlace, waitingFor: "the 30 operations of released closed gates finishing",
                        hint: "An OperationQueue released while suspended does not trap, but its operations never run nor finish: whoever waits for them waits forever. In deinit, if the gate never opened, cancel every operation and set isSuspended = false.",
                        unless: { log.dropped(what: "Gates released while closed") },
                        progress: { log.finishedCount }, { log.finishedCount >= 30 || !log.started.current.isEmpty })
        else { return }
        let ran = log.started.current
        #expect(ran.isEmpty, "\(ran.count) operations of gates released while closed ran their work: nobody granted access, so they finish cancelled.")
    }
}
