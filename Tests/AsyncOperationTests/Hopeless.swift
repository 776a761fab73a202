import AsyncOperation
import Dispatch
import Foundation
import KataTestSupport
import Testing

/// How a check fails as soon as it can know that the event it waits for will never come.
///
/// A check waits for an event (the work ran, a dependent ran) only while it can still come. Each
/// wait has a "hopeless" rule that reads the facts the check has seen happen: start() returned and
/// the operation is still `.ready`; finish() returned and the operation is not finished; the
/// operation is finished but an operation that depends on it is still not ready, so no
/// `didChangeValue(forKey: "isFinished")` was ever sent. A rule must hold for `settleSeconds`
/// without a break before the check gives up: correct code in another style (start() or finish()
/// handing its transition to a private queue) makes such a rule true only for the instant between
/// two of its own steps, while a stub or a wrong implementation keeps it true for ever.
enum Hopeless {
    /// How long a hopeless rule must hold without a break. Far above the few instructions between
    /// a state change and its notification; far below the deadline of the wait it shortens.
    static let settleSeconds = 0.25

    /// Waits for `semaphore` like `Deadline.wait`, but gives up once `rule` has held for
    /// `settleSeconds`, recording the rule's reason as the failure. It polls and sleeps with
    /// `Task.sleep`, so a waiting check never holds one of the few threads that run the checks.
    @discardableResult
    static func wait(
        for semaphore: DispatchSemaphore, seconds: Double = Deadline.promptSeconds,
        in place: String, waitingFor what: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation, unless rule: () -> String?
    ) async -> Bool {
        await waitUntil(seconds: seconds, in: place, waitingFor: what, hint: hint, sourceLocation: sourceLocation,
                        { semaphore.wait(timeout: .now()) == .success }, unless: rule)
    }

    /// Polls `condition` until it holds, like `Deadline.waitUntil`, but gives up once `rule` has
    /// held for `settleSeconds`, recording the rule's reason as the failure. With `progress`, the
    /// deadline counts from the last time `progress()` changed (a long run that keeps moving is
    /// not a deadlock), up to `limit` in all.
    @discardableResult
    static func waitUntil(
        seconds: Double = Deadline.promptSeconds, limit: Double? = nil, pollSeconds: Double = 0.001,
        in place: String, waitingFor what: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        progress: () -> Int = { 0 }, _ condition: () -> Bool, unless rule: () -> String?
    ) async -> Bool {
        var poll = Poll(seconds: seconds, limit: limit, progress: progress())
        while true {
            if let outcome = poll.step(in: place, waitingFor: what, hint: hint, sourceLocation: sourceLocation,
                                       progress: progress(), condition, unless: rule) {
                return outcome
            }
            try? await Task.sleep(nanoseconds: UInt64(pollSeconds * 1e9))
        }
    }

    /// The same wait for the body of an isolated check, which owns its process and may block.
    @discardableResult
    static func waitUntilBlocking(
        seconds: Double = Deadline.promptSeconds, limit: Double? = nil, pollSeconds: Double = 0.001,
        in place: String, waitingFor what: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        progress: () -> Int = { 0 }, _ condition: () -> Bool, unless rule: () -> String?
    ) -> Bool {
        var poll = Poll(seconds: seconds, limit: limit, progress: progress())
        while true {
            if let outcome = poll.step(in: place, waitingFor: what, hint: hint, sourceLocation: sourceLocation,
                                       progress: progress(), condition, unless: rule) {
                return outcome
            }
            usleep(UInt32(pollSeconds * 1_000_000))
        }
    }

    /// True if `event` happens within `seconds` (polled without blocking a thread): how a check
    /// proves that something did not happen too early.
    static func happens(within seconds: Double, _ event: () -> Bool) async -> Bool {
        let end = DispatchTime.now() + seconds
        while DispatchTime.now() < end {
            if event() { return true }
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        return event()
    }

    /// Runs `body` (a call into the code under test) on a dedicated thread and waits for it to
    /// return, without blocking a thread of the checks; on a miss records "deadlock suspected".
    static func call(
        seconds: Double = Deadline.promptSeconds, in place: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: @escaping @Sendable () -> Void
    ) async -> Bool {
        let done = ThreadGang.spawn(body)
        return await waitUntil(seconds: seconds, in: place, waitingFor: "the call returning", sourceLocation: sourceLocation,
                               { done.wait(timeout: .now()) == .success }, unless: { nil })
    }

    /// One wait's bookkeeping: its deadline, its progress, and how long its rule has held.
    private struct Poll {
        let started = DispatchTime.now()
        let seconds: Double
        let hardEnd: DispatchTime
        var end: DispatchTime
        var lastProgress: Int
        let settled = Settled()

        init(seconds: Double, limit: Double?, progress: Int) {
            self.seconds = seconds
            hardEnd = started + (limit ?? seconds)
            end = started + seconds
            lastProgress = progress
        }

        /// True or false once the wait is over (the failure recorded), nil to go on waiting.
        mutating func step(
            in place: String, waitingFor what: String, hint: String?, sourceLocation: SourceLocation,
            progress: Int, _ condition: () -> Bool, unless rule: () -> String?
        ) -> Bool? {
            if condition() { return true }
            if let reason = settled.reason(rule()) {
                if condition() { return true }  // one last look
                Issue.record(Comment(rawValue: reason), sourceLocation: sourceLocation)
                return false
            }
            let now = DispatchTime.now()
            if progress != lastProgress {
                lastProgress = progress
                end = min(hardEnd, now + seconds)
            }
            if now >= end {
                DeadlockReport.record(in: place, waitingFor: what, seconds: seconds, hint: hint, sourceLocation: sourceLocation)
                return false
            }
            return nil
        }
    }

    /// Remembers since when a rule has held without a break.
    final class Settled {
        private var since: DispatchTime?

        /// The reason, once it has been given on every call for `settleSeconds`; otherwise nil.
        func reason(_ reason: String?) -> String? {
            guard let reason else {
                since = nil
                return nil
            }
            let now = DispatchTime.now()
            guard let first = since else {
                since = now
                return nil
            }
            return now.uptimeNanoseconds - first.uptimeNanoseconds >= UInt64(Hopeless.settleSeconds * 1e9) ? reason : nil
        }
    }
}

/// A plain operation that depends on an operation under test and is never run: it becomes ready
/// exactly when the operation under test announces `didChangeValue(forKey: "isFinished")` after
/// becoming finished. That is how a check on Linux, where no subclass can intercept the
/// notifications, sees whether the announcement came.
final class FinishWitness: @unchecked Sendable {
    private let witness = BlockOperation {}
    /// The witness itself (see `keepAlive`).
    var operation: Operation { witness }

    init(of operation: Operation) {
        witness.addDependency(operation)
    }

    /// True once the operation under test announced that it finished.
    var heardFinish: Bool { witness.isReady }
}

/// The rules the checks share, worded for the learner.
enum Rules {
    /// start() returned, yet the operation is still `.ready` and main() never ran.
    static func startLeftReady(_ operation: AsyncOperation, startReturned: Bool, mainRan: Bool, who: String = "start()") -> String? {
        guard startReturned, !mainRan, operation.state == .ready, !operation.isExecuting, !operation.isFinished else { return nil }
        return "\(who) returned, yet the operation is still .ready (isExecuting false, isFinished false) and main() never ran: start() must enter .executing, with its notifications, and call main() (or finish at once if the operation is cancelled)."
    }

    /// finish() returned, yet the operation is not finished.
    static func finishLeftUnfinished(_ operation: AsyncOperation, finishReturned: Bool) -> String? {
        guard finishReturned, !operation.isFinished else { return nil }
        return "finish() returned, yet the operation is not finished: its state is .\(operation.state.rawValue) (isFinished false). finish() must move the state to .finished."
    }

    /// The operation says it is finished, but never announced it.
    static func finishedSilently(_ operation: AsyncOperation, witness: FinishWitness, known: Bool = true) -> String? {
        guard known, operation.isFinished, !witness.heardFinish else { return nil }
        return "The operation is finished (isFinished true), but an operation that depends on it is still not ready: OperationQueue never heard didChangeValue(forKey: \"isFinished\") after the change, so its dependents, completionBlock and the queue wait for ever. Call willChangeValue(forKey: \"isFinished\") before the change and didChangeValue(forKey: \"isFinished\") after it (the real key, not \"state\")."
    }
}

/// `queue.addOperations(operations, waitUntilFinished: false)`, which Foundation marks unavailable
/// in asynchronous code because of its waiting form; this form never waits.
func enqueue(_ operations: [Operation], on queue: OperationQueue) {
    queue.addOperations(operations, waitUntilFinished: false)
}

/// The first reason `rule` gives for one of `operations`, each operation asked once. (Not
/// `lazy.compactMap(…).first`: that asks twice, and a reason that changed in between traps.)
func firstReason<T>(_ operations: [T], _ rule: (T) -> String?) -> String? {
    for operation in operations {
        if let reason = rule(operation) { return reason }
    }
    return nil
}

/// Operations a check keeps for the rest of the run. swift-corelibs-foundation keeps an
/// unretained pointer from an operation to each operation that depends on it and uses it while it
/// handles `didChangeValue(forKey: "isFinished")`: a dependent freed when its check returns, while
/// a `finish()` that runs on a private queue is still announcing, would crash the whole run. The
/// operations of a check are few and small, so they are simply kept.
func keepAlive(_ operations: Operation...) {
    keptOperations.withLock { $0 += operations }
}

private let keptOperations = Locked([Operation]())
