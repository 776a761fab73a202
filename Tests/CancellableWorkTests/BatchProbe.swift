import CancellableWork
import Dispatch
import Foundation
import KataTestSupport
import Testing

/// Records every call of a batch's notify completion, and whether it ran on the notify queue.
final class NotifyProbe<Value: Sendable>: @unchecked Sendable {
    let recorder = CallRecorder<(outcomes: [JobOutcome<Value>], onQueue: Bool)>()
    let queue = DispatchQueue(label: "notify-probe")
    private let key = DispatchSpecificKey<Bool>()

    /// A probe that is not registered yet: see `register(on:)` and `registered(on:in:)`.
    init() {
        queue.setSpecific(key: key, value: true)
    }

    /// Registers with `batch.notify` on the calling thread (inside an isolated check).
    convenience init(_ batch: CancellableBatch<Value>) {
        self.init()
        register(on: batch)
    }

    func register(on batch: CancellableBatch<Value>) {
        batch.notify(queue: queue) { [recorder, key] outcomes in
            recorder.record((outcomes, DispatchQueue.getSpecific(key: key) == true))
        }
    }

    /// Registers from a dedicated thread, so that a `notify` that blocks its caller fails the
    /// check instead of holding the test's thread; nil if `notify` did not return.
    static func registered(on batch: CancellableBatch<Value>, in place: String) async -> NotifyProbe? {
        let probe = NotifyProbe()
        let returned = await Await.returns("notify(queue:_:)", in: place,
                                           hint: "notify only registers the completion; it must return at once, not wait for the batch.") {
            probe.register(on: batch)
        }
        return returned ? probe : nil
    }

    var calls: [[JobOutcome<Value>]] { recorder.calls.map(\.outcomes) }
    var onQueue: [Bool] { recorder.calls.map(\.onQueue) }
    var wasCalled: Bool { !recorder.calls.isEmpty }

    static var hint: String {
        "notify's completion runs once every job has completed or been cancelled, including jobs cancelled before they started."
    }

    /// Waits for the first call, blocking (inside an isolated check); false (with "deadlock
    /// suspected") if none came in time.
    @discardableResult
    func waitForCall(seconds: Double = Deadline.promptSeconds, in place: String) -> Bool {
        recorder.waitForFirstCall(seconds: seconds, in: place, waitingFor: "the notify completion", hint: Self.hint)
    }

    /// Waits for the first call without blocking a thread.
    @discardableResult
    func call(seconds: Double = Deadline.promptSeconds, in place: String, unless hopeless: () -> String? = { nil }) async -> Bool {
        await Await.until(seconds: seconds, in: place, waitingFor: "the notify completion", hint: Self.hint, unless: hopeless) { wasCalled }
    }

    /// True if the completion was called within `seconds` (used to prove it was NOT called yet).
    func wasCalled(within seconds: Double) -> Bool { recorder.wasCalled(within: seconds) }
}

/// A gate a job waits at until the check opens it. A job a check holds stays held until the check
/// lets it go, however long the machine takes to get there: a gate that opened by itself after a
/// few seconds let a "blocked" job finish on a loaded machine before the check looked.
/// Every check opens its gates on every path (`defer`), and an isolated check's process ends
/// with it, so no job is held for ever.
final class Gate: @unchecked Sendable {
    private let opened = Locked(false)
    private let semaphore = DispatchSemaphore(value: 0)
    func open() {
        let first = opened.withLock { wasOpen -> Bool in
            defer { wasOpen = true }
            return !wasOpen
        }
        if first { semaphore.signal() }
    }
    var isOpen: Bool { opened.current }
    /// Waits until `open()`.
    func pass() {
        semaphore.wait()
        semaphore.signal()  // open for every later pass too
    }
}

/// Polls `token` until it is cancelled, or until the check gives up and opens `giveUp`; true if
/// it saw the cancel.
func waitForCancel(_ token: CancellationToken, unless giveUp: Gate) -> Bool {
    while !token.isCancelled {
        if giveUp.isOpen { return token.isCancelled }
        usleep(200)
    }
    return true
}

/// Why a check waiting for job `name` to run can stop waiting: nobody holds the job any more, so
/// it can never run. `ran` must be read after the liveness (a body that runs sets it first).
func jobCannotRun(_ name: String, _ liveness: Liveness, ran: () -> Bool) -> String? {
    guard !liveness.isHeld(name), !ran() else { return nil }
    return "start() returned, \(name) has not run, and the batch no longer holds it: it can never run. add(_:) must keep each job, and start() must submit it to the queue as a DispatchWorkItem."
}

/// Why a check waiting for a job to run can stop waiting: notify already said the batch is over.
func batchEndedBeforeJob<Value>(_ name: String, _ probe: NotifyProbe<Value>) -> String? {
    guard let outcomes = probe.calls.first else { return nil }
    return "notify's completion ran (with \(describe(outcomes))) before \(name) had run: the batch is over only when every job has completed or been cancelled. Keep the completion until then."
}

func describe<Value>(_ outcomes: [JobOutcome<Value>]) -> String {
    "[" + outcomes.map { outcome in
        switch outcome {
        case .completed(let value): ".completed(\(value))"
        case .cancelledBeforeStart: ".cancelledBeforeStart"
        case .cancelledWhileRunning: ".cancelledWhileRunning"
        }
    }.joined(separator: ", ") + "]"
}
