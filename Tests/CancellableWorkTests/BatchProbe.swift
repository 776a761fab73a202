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

    init(_ batch: CancellableBatch<Value>) {
        queue.setSpecific(key: key, value: true)
        batch.notify(queue: queue) { [recorder, key] outcomes in
            recorder.record((outcomes, DispatchQueue.getSpecific(key: key) == true))
        }
    }

    var calls: [[JobOutcome<Value>]] { recorder.calls.map(\.outcomes) }
    var onQueue: [Bool] { recorder.calls.map(\.onQueue) }

    /// Waits for the first call; false (with "deadlock suspected") if none came in time.
    @discardableResult
    func waitForCall(seconds: Double = 3, in place: String) -> Bool {
        recorder.waitForFirstCall(seconds: seconds, in: place, waitingFor: "the notify completion",
                                  hint: "notify's completion runs once every job has completed or been cancelled, including jobs cancelled before they started.")
    }

    /// True if the completion was called within `seconds` (used to prove it was NOT called yet).
    func wasCalled(within seconds: Double) -> Bool { recorder.wasCalled(within: seconds) }
}

/// A gate a job waits at, with a bound so that no job blocks forever.
final class Gate: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func open() { semaphore.signal() }
    /// Waits at most `seconds` for `open()`.
    func pass(seconds: Double = 5) { _ = semaphore.wait(timeout: .now() + seconds) }
}

/// Polls `token` until it is cancelled, at most `seconds`; true if it saw the cancel.
func waitForCancel(_ token: CancellationToken, seconds: Double = 5) -> Bool {
    let end = DispatchTime.now() + seconds
    while !token.isCancelled {
        if DispatchTime.now() >= end { return false }
        usleep(200)
    }
    return true
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
