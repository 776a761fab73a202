import AsyncOperation
import Foundation
import KataTestSupport

/// One key-value notification the operation sent, with what `isExecuting` and `isFinished`
/// said at that moment (what an observer reads: the old value at `will`, the new one at `did`).
struct Notification: Equatable, CustomStringConvertible {
    enum Phase: String { case will, did }
    let phase: Phase
    let key: String
    let executing: Bool
    let finished: Bool

    var description: String { "\(phase)(\(key)) [isExecuting=\(executing), isFinished=\(finished)]" }
}

/// An AsyncOperation whose `isExecuting`/`isFinished` notifications the checks can read.
///
/// On Apple platforms a real KVO observer with the `.prior` option sees every `will` and `did`.
/// swift-corelibs-foundation on Linux has no KVO, and declares `willChangeValue(forKey:)` and
/// `didChangeValue(forKey:)` in an extension of Operation, where no subclass can intercept them:
/// there the checks judge the notifications by their effects on OperationQueue instead
/// (`notificationsAreObservable` is false).
final class RecordingOperation: AsyncOperation, @unchecked Sendable {
    static var notificationsAreObservable: Bool {
        #if canImport(ObjectiveC)
        true
        #else
        false
        #endif
    }

    private let log = Locked([Notification]())
    private let work: @Sendable (RecordingOperation) -> Void
    let mainRuns = Locked(0)
    /// How many calls of start() have returned (by the queue or by a check).
    let startReturns = Locked(0)
    /// How many calls of `finishAndRecord()` have returned.
    let finishReturns = Locked(0)
    /// Becomes ready when this operation announces that it finished.
    private(set) var witness: FinishWitness!
    #if canImport(ObjectiveC)
    private var observer: NotificationObserver?
    #endif

    init(_ work: @escaping @Sendable (RecordingOperation) -> Void = { _ in }) {
        self.work = work
        super.init()
        witness = FinishWitness(of: self)
        #if canImport(ObjectiveC)
        let observer = NotificationObserver { [weak self] key, isPrior in
            self?.record(isPrior ? .will : .did, key)
        }
        self.observer = observer
        addObserver(observer, forKeyPath: "isExecuting", options: [.prior], context: nil)
        addObserver(observer, forKeyPath: "isFinished", options: [.prior], context: nil)
        #endif
    }

    #if canImport(ObjectiveC)
    deinit {
        if let observer {
            removeObserver(observer, forKeyPath: "isExecuting")
            removeObserver(observer, forKeyPath: "isFinished")
        }
    }
    #endif

    override func start() {
        super.start()
        startReturns.withLock { $0 += 1 }
    }

    override func main() {
        mainRuns.withLock { $0 += 1 }
        work(self)
    }

    /// Calls finish(), then records that it returned: what the hopeless rules read.
    func finishAndRecord() {
        finish()
        finishReturns.withLock { $0 += 1 }
    }

    /// `hopeless`, once it has held for this operation for `Hopeless.settleSeconds` without a
    /// break: what a check that watches many operations reads, so that many operations each
    /// passing an instant between two steps of a correct transition never add up to a reason.
    var settledHopeless: String? {
        let reason = hopeless
        let now = DispatchTime.now()
        return hopelessSince.withLock { since -> String? in
            guard let reason else {
                since = nil
                return nil
            }
            let first = since ?? now
            since = first
            return now.uptimeNanoseconds - first.uptimeNanoseconds >= UInt64(Hopeless.settleSeconds * 1e9) ? reason : nil
        }
    }

    private let hopelessSince = Locked<DispatchTime?>(nil)

    /// Why waiting for this operation to run its work or to be seen finished is hopeless, if it is:
    /// start() returned and left it `.ready`; finish() returned and left it unfinished; or it is
    /// finished (after start() or finish() returned) without having announced it.
    var hopeless: String? {
        let started = startReturns.current > 0
        let finished = finishReturns.current > 0
        return Rules.startLeftReady(self, startReturned: started, mainRan: mainRuns.current > 0)
            ?? Rules.finishLeftUnfinished(self, finishReturned: finished)
            ?? Rules.finishedSilently(self, witness: witness, known: started || finished)
    }

    private func record(_ phase: Notification.Phase, _ key: String) {
        // Read the state before taking the log's lock, as any observer would.
        let note = Notification(phase: phase, key: key, executing: isExecuting, finished: isFinished)
        log.withLock { $0.append(note) }
    }

    /// The notifications for `isExecuting` and `isFinished`, in the order they were sent.
    var notifications: [Notification] { log.current }
}

#if canImport(ObjectiveC)
/// A KVO observer that reports each notification's key and whether it is the prior (`will`) one.
private final class NotificationObserver: NSObject, @unchecked Sendable {
    private let onChange: (String, Bool) -> Void

    init(onChange: @escaping (String, Bool) -> Void) {
        self.onChange = onChange
    }

    override func observeValue(
        forKeyPath keyPath: String?, of object: Any?, change: [NSKeyValueChangeKey: Any]?,
        context: UnsafeMutableRawPointer?
    ) {
        guard let keyPath else { return }
        onChange(keyPath, (change?[.notificationIsPriorKey] as? Bool) ?? false)
    }
}
#endif

/// Checks one key's notifications: exactly one `will` then one `did`, the `will` seeing
/// `before` and the `did` seeing `after`. Returns a learner-facing problem, or nil.
func announcementProblem(_ notes: [Notification], key: String, before: Bool, after: Bool, when: String) -> String? {
    let mine = notes.filter { $0.key == key }
    let value: (Notification) -> Bool = { key == "isExecuting" ? $0.executing : $0.finished }
    guard !mine.isEmpty else {
        return "\(when) sent no notification for \"\(key)\". Call willChangeValue(forKey: \"\(key)\") before changing the state and didChangeValue(forKey: \"\(key)\") after: OperationQueue learns about the change only from them."
    }
    guard mine.map(\.phase) == [.will, .did] else {
        return "\(when) sent \(mine.map { "\($0.phase)(\(key))" }.joined(separator: ", ")) for \"\(key)\"; expected one will followed by one did."
    }
    if value(mine[0]) != before {
        return "\(when): at willChangeValue(forKey: \"\(key)\") \(key) was already \(after). Send will before you change the state."
    }
    if value(mine[1]) != after {
        return "\(when): at didChangeValue(forKey: \"\(key)\") \(key) was still \(before). Send did after you change the state: observers (and OperationQueue on Linux) read \(key) then and ignore a did that comes early."
    }
    return nil
}
