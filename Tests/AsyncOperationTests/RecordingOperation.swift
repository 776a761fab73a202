import AsyncOperation
import Foundation
import KataTestSupport
import Testing

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
/// `didChangeValue(forKey:)` in an extension of Operation, where no subclass can intercept them;
/// but each `did` for "isFinished" or "isExecuting" reads that property back through this class,
/// from one place in Foundation (see `DidChangeSite`). A `watched` operation records those reads as
/// its `did`s; a `will` does nothing there and cannot be seen (`willIsObservable` is false).
final class RecordingOperation: AsyncOperation, @unchecked Sendable {
    /// True when the checks can read this platform's notifications: always with KVO; on Linux
    /// when `DidChangeSite` could tell Foundation's reads apart from ordinary ones.
    static var notificationsAreObservable: Bool {
        #if canImport(ObjectiveC)
        true
        #else
        didSites != nil
        #endif
    }

    /// Whether the checks see `willChangeValue(forKey:)`: only with KVO.
    static var willIsObservable: Bool {
        #if canImport(ObjectiveC)
        true
        #else
        false
        #endif
    }

    #if !canImport(ObjectiveC)
    /// Where Foundation reads `isFinished`/`isExecuting` when it handles a `did`, learned once.
    static let didSites: DidChangeSite.Sites? = calibrate()

    /// Sends each `did` to an operation that answers "not finished, not executing" (so Foundation
    /// changes nothing), then reads both properties from here: the sites must all differ.
    private static func calibrate() -> DidChangeSite.Sites? {
        let probe = RecordingOperation(watched: true, calibrating: true)
        probe.didChangeValue(forKey: "isFinished")
        probe.didChangeValue(forKey: "isExecuting")
        _ = probe.isFinished
        let reads = probe.calibration.current
        guard reads.count == 3, reads[0].key == "isFinished", reads[1].key == "isExecuting", reads[2].key == "isFinished" else { return nil }
        return DidChangeSite.sites(didFinished: reads[0].stack, didExecuting: reads[1].stack, ordinary: reads[2].stack)
    }

    private let watched: Bool
    private let calibrating: Bool
    private let calibration = Locked([(key: String, stack: [UInt])]())

    override var isFinished: Bool {
        let stack = watched ? DidChangeSite.returnAddresses() : []
        if calibrating {
            calibration.withLock { $0.append((key: "isFinished", stack: stack)) }
            return false
        }
        let value = super.isFinished
        if watched, let sites = Self.didSites, DidChangeSite.isCall(stack, at: sites.depth, from: sites.isFinished) {
            log.withLock { $0.append(Notification(phase: .did, key: "isFinished", executing: super.isExecuting, finished: value)) }
        }
        return value
    }

    override var isExecuting: Bool {
        let stack = watched ? DidChangeSite.returnAddresses() : []
        if calibrating {
            calibration.withLock { $0.append((key: "isExecuting", stack: stack)) }
            return false
        }
        let value = super.isExecuting
        if watched, let sites = Self.didSites, DidChangeSite.isCall(stack, at: sites.depth, from: sites.isExecuting) {
            log.withLock { $0.append(Notification(phase: .did, key: "isExecuting", executing: value, finished: super.isFinished)) }
        }
        return value
    }
    #endif

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

    /// `watched`: on Linux, record the `did`s (each read of `isFinished`/`isExecuting` then costs
    /// a short stack walk, so only the checks that judge notifications ask for it). With KVO every
    /// operation is watched.
    init(watched: Bool = false, _ work: @escaping @Sendable (RecordingOperation) -> Void = { _ in }) {
        self.work = work
        #if !canImport(ObjectiveC)
        self.watched = watched
        self.calibrating = false
        #endif
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

    #if !canImport(ObjectiveC)
    private init(watched: Bool, calibrating: Bool) {
        self.work = { _ in }
        self.watched = watched
        self.calibrating = calibrating
        super.init()
    }
    #endif

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

    /// How many calls of `finishAndRecord()` have begun.
    let finishCalls = Locked(0)

    /// Calls finish(), then records that it returned: what the hopeless rules read.
    func finishAndRecord() {
        finishCalls.withLock { $0 += 1 }
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

    /// The notifications, or nil after recording that this platform's could not be observed: a
    /// check that cannot see them cannot pass on them.
    var observedNotifications: [Notification]? {
        guard Self.notificationsAreObservable else {
            Issue.record("This check could not observe the operation's didChangeValue(forKey:) calls on this platform (see DidChangeSite in the suite), so it cannot judge them. This is not a fault in your code; please report it with your platform.")
            return nil
        }
        return notifications
    }
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

/// Checks one key's notifications: exactly one `will` then one `did` (only the `did` where `will`
/// cannot be seen), the `will` seeing `before` and the `did` seeing `after`. Returns a
/// learner-facing problem, or nil.
func announcementProblem(_ notes: [Notification], key: String, before: Bool, after: Bool, when: String) -> String? {
    let mine = notes.filter { $0.key == key }
    let value: (Notification) -> Bool = { key == "isExecuting" ? $0.executing : $0.finished }
    let seesWill = RecordingOperation.willIsObservable
    guard mine.contains(where: { $0.phase == .did }) else {
        return "\(when) sent no didChangeValue(forKey: \"\(key)\")\(mine.isEmpty ? "" : " (only \(mine.map(\.description).joined(separator: ", ")))"). Call willChangeValue(forKey: \"\(key)\") before changing the state and didChangeValue(forKey: \"\(key)\") after: OperationQueue learns about the change only from them."
    }
    let expected: [Notification.Phase] = seesWill ? [.will, .did] : [.did]
    guard mine.map(\.phase) == expected else {
        return "\(when) sent \(mine.map { "\($0.phase)(\(key))" }.joined(separator: ", ")) for \"\(key)\"; expected \(seesWill ? "one will followed by one did" : "one did (this platform cannot see will)"). A second pair means the transition ran twice."
    }
    if seesWill, value(mine[0]) != before {
        return "\(when): at willChangeValue(forKey: \"\(key)\") \(key) was already \(after). Send will before you change the state."
    }
    if value(mine[mine.count - 1]) != after {
        return "\(when): at didChangeValue(forKey: \"\(key)\") \(key) was still \(before). Send did after you change the state: observers (and OperationQueue on Linux) read \(key) then and ignore a did that comes early."
    }
    return nil
}
