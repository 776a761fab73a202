import AsyncBridge
import Foundation
import KataTestSupport

/// An asynchronous operation (the given `AsyncOperation`) that starts, then finishes only when the
/// check says so, or `finishDelayAfterCancel` seconds after it is cancelled, from another thread.
final class HeldOperation: AsyncOperation, @unchecked Sendable {
    private let log = Locked((started: false, cancelled: false, released: false))
    private let finishDelayAfterCancel: Double?
    /// Shared by many operations of one check: the count of those started and not yet finished.
    private let meter: ConcurrencyMeter?
    private let autoFinish: Locked<Bool>?

    /// `autoFinish`: when it says true at start, the operation finishes at once on another thread.
    init(finishDelayAfterCancel: Double? = nil, meter: ConcurrencyMeter? = nil, autoFinish: Locked<Bool>? = nil) {
        self.finishDelayAfterCancel = finishDelayAfterCancel
        self.meter = meter
        self.autoFinish = autoFinish
        super.init()
    }

    override func main() {
        meter?.enter()
        log.withLock { $0.started = true }
        if autoFinish?.current == true || isCancelled { release() }
    }

    override func cancel() {
        super.cancel()
        log.withLock { $0.cancelled = true }
        if let finishDelayAfterCancel, state == .executing {
            DispatchQueue.global().asyncAfter(deadline: .now() + finishDelayAfterCancel) { self.release() }
        }
    }

    /// Finishes it on another thread.
    func release() {
        DispatchQueue.global().async {
            let first = self.log.withLock { log -> Bool in
                defer { log.released = true }
                return !log.released
            }
            guard first else { return }
            self.meter?.leave()
            self.finish()
        }
    }

    var started: Bool { log.current.started }
}

/// A synchronous operation that records whether what it depends on had finished when it ran.
final class RecordingBlock: Operation, @unchecked Sendable {
    private let log = Locked((ran: false, dependenciesFinished: false))
    override func main() {
        let finished = dependencies.allSatisfy(\.isFinished)
        log.withLock { $0 = (true, finished) }
    }
    var ran: Bool { log.current.ran }
    var dependenciesWereFinished: Bool { log.current.dependenciesFinished }
}

/// A queue that returns from `addOperation` only once a chosen operation has finished and its
/// completion block has run: the schedule in which a quick operation is over before
/// `addOperation` returns. A real queue allows it (another core may run the operation at once);
/// this queue makes it certain instead of rare, so that a hook set up after `addOperation` (a
/// completion block assigned afterwards) is seen to come too late in every run.
final class FinishingQueue: OperationQueue, @unchecked Sendable {
    private let chosen = Locked([ObjectIdentifier: DispatchSemaphore]())

    /// `addOperation(operation)` will wait (at most `limit` seconds) until `done` is signalled:
    /// by the operation's own completion block.
    func finishBeforeReturning(_ operation: Operation, signalledBy done: DispatchSemaphore) {
        chosen.withLock { $0[ObjectIdentifier(operation)] = done }
    }

    static let limit = 1.0

    override func addOperation(_ op: Operation) {
        super.addOperation(op)
        waitIfChosen(op)
    }

    override func addOperations(_ ops: [Operation], waitUntilFinished wait: Bool) {
        super.addOperations(ops, waitUntilFinished: wait)
        ops.forEach(waitIfChosen)
    }

    private func waitIfChosen(_ op: Operation) {
        guard let done = chosen.withLock({ $0.removeValue(forKey: ObjectIdentifier(op)) }) else { return }
        // Bounded: code that holds what the completion block needs while it adds the operation
        // only delays itself.
        _ = done.wait(timeout: .now() + Self.limit)
    }
}
