import Foundation
import KataTestSupport
import ThreadSafeDictionary

/// One public operation of the dictionary, as the exclusion checks call it.
enum DictionaryOperation: String, CaseIterable, Sendable, CustomStringConvertible {
    case get, set, removeValue, count, isEmpty, snapshot, withValue, valueOrInsert, mutate, read

    /// How the learner knows it: the name in every message and in the CHECKLIST.
    var description: String {
        switch self {
        case .get: "subscript get"
        case .set: "subscript set"
        case .removeValue: "removeValue(forKey:)"
        case .count: "count"
        case .isEmpty: "isEmpty"
        case .snapshot: "snapshot()"
        case .withValue: "withValue(forKey:_:)"
        case .valueOrInsert: "value(forKey:orInsert:)"
        case .mutate: "mutate"
        case .read: "read"
        }
    }

    /// Writing operations: they must wait for the readers inside `read` too.
    var writes: Bool { [.set, .removeValue, .withValue, .valueOrInsert, .mutate].contains(self) }

    /// Operations that hand the caller's closure to the dictionary: their body is where they are "in".
    var hasBody: Bool { [.withValue, .valueOrInsert, .mutate, .read].contains(self) }

    static var writers: [DictionaryOperation] { allCases.filter(\.writes) }
}

/// What is held inside the dictionary while the operation under test is called.
enum HeldSide: Sendable {
    /// A writer parked inside `mutate`'s body: nothing may read or change the storage meanwhile.
    case writerInMutate
    /// A reader parked inside `read`'s body: no write may happen meanwhile.
    case readerInRead

    var words: String {
        switch self {
        case .writerInMutate: "a writer was inside mutate"
        case .readerInRead: "a reader was inside read's body"
        }
    }
}

/// How one operation behaved while the other side was held.
enum ProbeFinding: Equatable, Sendable {
    /// It waited until the held body left: right.
    case waited
    /// It returned at once, and its write came in order after the held body (an asynchronous
    /// barrier write): right.
    case deferredWrite
    /// Its body ran while the held body was still inside.
    case gotIn
    /// It returned, without running its body (or it has none), while the held body was still inside.
    case returnedWhileHeld
    /// `subscript set` returned at once, and its value was visible before the held body left.
    case writeVisibleTooEarly
    /// `subscript set` returned at once, and a read issued after it on the same thread did not see it.
    case writeNotSeenAfterwards
    /// The held body never started (mutate or read did not call it).
    case holderNeverStarted
    /// The held body did not return after it was released.
    case holderStuck
    /// The operation did not return after the held body was released.
    case operationStuck

    var isRight: Bool { self == .waited || self == .deferredWrite }

    /// It did not keep out: its body ran, or it returned, while the held body was inside.
    var gotPast: Bool { self == .gotIn || self == .returnedWhileHeld }
}

/// Holds one side inside the dictionary, calls one operation from another thread, and reports
/// whether it kept out. Every wait is bounded, and the held body is released on every path.
enum ExclusionProbe {
    /// How long an operation may take to get in before it counts as waiting: a wrong one gets in
    /// within microseconds of the call, a right one never does until the release.
    static let grace = 0.1
    /// The same, when only listing the other operations that fail.
    static let listingGrace = 0.1
    /// How long the operation and the held body may take to return after the release.
    static let settleSeconds = Deadline.promptSeconds
    /// The same, for the probes that only list other failing operations or find whom to blame:
    /// shorter, so that the whole check stays well inside its watchdog even when several hang.
    static let listingSettleSeconds = 1.0

    final class Log: @unchecked Sendable {
        let lock = NSLock()
        var released = false
        var visibleInsideHolder = false
        var readBack: Int?
        var readBackBeforeRelease = false
        /// The operation's body ran (withValue, value(forKey:orInsert:), mutate, read).
        var bodyRan = false
        func with<R>(_ body: (Log) -> R) -> R { lock.lock(); defer { lock.unlock() }; return body(self) }
    }

    /// Several probes at once, each on its own dictionary and threads; nil for a probe that did
    /// not end in time (stuck in the code under test).
    static func probeAll(_ probes: [(DictionaryOperation, HeldSide)], grace: Double) -> [ProbeFinding?] {
        let settle = listingSettleSeconds
        let findings = Locked([Int: ProbeFinding]())
        let group = DispatchGroup()
        for (index, (operation, side)) in probes.enumerated() {
            group.enter()
            Thread {
                let finding = probe(operation, while: side, grace: grace, settle: settle)
                findings.withLock { $0[index] = finding }
                group.leave()
            }.start()
        }
        _ = group.wait(timeout: .now() + Deadline.promptSeconds + grace + 2 * settle + 0.5)
        let seen = findings.current
        return probes.indices.map { seen[$0] }
    }

    static func probe(
        _ operation: DictionaryOperation, while side: HeldSide, grace: Double = grace, settle: Double = settleSeconds
    ) -> ProbeFinding {
        let dictionary = ThreadSafeDictionary<String, Int>(["present": 1, "other": 2])
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let calling = DispatchSemaphore(value: 0)
        let gotIn = DispatchSemaphore(value: 0)
        let readBackDone = DispatchSemaphore(value: 0)
        let log = Log()
        var didRelease = false
        func releaseHolder() {
            guard !didRelease else { return }
            didRelease = true
            log.with { $0.released = true }
            release.signal()
        }
        defer { releaseHolder() }

        let holderDone = ThreadGang.spawn {
            switch side {
            case .writerInMutate:
                dictionary.mutate { entries in
                    held.signal()
                    // Held until the probe lets it go (on every path, `defer`), however long
                    // a loaded machine takes to get there: a hold that ended by itself would let
                    // a right operation in "early".
                    release.wait()
                    let visible = entries["new"] != nil
                    log.with { $0.visibleInsideHolder = visible }
                }
            case .readerInRead:
                dictionary.read { _ in
                    held.signal()
                    release.wait()
                }
            }
        }
        guard held.wait(timeout: .now() + Deadline.promptSeconds) == .success else { return .holderNeverStarted }

        @Sendable func bodyRuns() {
            log.with { $0.bodyRan = true }
            gotIn.signal()
        }
        let operationDone = ThreadGang.spawn {
            calling.signal()
            switch operation {
            case .get: _ = dictionary["present"]
            case .set:
                dictionary["new"] = 7
                gotIn.signal()
                let back = dictionary["new"]
                log.with {
                    $0.readBack = back
                    $0.readBackBeforeRelease = !$0.released
                }
                readBackDone.signal()
            case .removeValue: _ = dictionary.removeValue(forKey: "present")
            case .count: _ = dictionary.count
            case .isEmpty: _ = dictionary.isEmpty
            case .snapshot: _ = dictionary.snapshot()
            case .withValue: dictionary.withValue(forKey: "present") { value in bodyRuns(); value = 5 }
            case .valueOrInsert:
                // Against a writer, a key that is present: the first look must wait too (a
                // double-checked insert whose first look skips the protection returns at once).
                // Against a reader, a key that is absent: the insert must wait.
                _ = dictionary.value(forKey: side == .writerInMutate ? "present" : "absent") { bodyRuns(); return 9 }
            case .mutate: dictionary.mutate { entries in bodyRuns(); entries["m"] = 1 }
            case .read: dictionary.read { _ in bodyRuns() }
            }
            gotIn.signal()
        }
        _ = calling.wait(timeout: .now() + Deadline.promptSeconds)
        let early = gotIn.wait(timeout: .now() + grace) == .success
        if early && operation == .set {
            // Returned at once: before releasing, give the read that follows it the same chance to
            // get in (a right one waits for the held body; a wrong one sees the value now).
            _ = readBackDone.wait(timeout: .now() + grace)
        }
        let bodyRanEarly = log.with { $0.bodyRan }
        releaseHolder()
        // Both sides return once released; the deadline counts from the last one that did.
        func returned(_ group: DispatchGroup) -> Bool { group.wait(timeout: .now()) == .success }
        var deadline = ProgressDeadline(seconds: settle, progress: 0)
        while !(returned(holderDone) && returned(operationDone)),
              !deadline.expired(progress: (returned(holderDone) ? 1 : 0) + (returned(operationDone) ? 1 : 0)) {
            usleep(1_000)
        }
        let holderReturned = returned(holderDone)
        let operationReturned = returned(operationDone)

        if early {
            let gotPast: ProbeFinding = bodyRanEarly ? .gotIn : .returnedWhileHeld
            guard operation == .set else { return gotPast }
            // An asynchronous barrier write may return at once, as long as it comes in order.
            guard holderReturned && operationReturned else { return gotPast }
            return log.with { log -> ProbeFinding in
                if log.visibleInsideHolder || (log.readBackBeforeRelease && log.readBack == 7) { return .writeVisibleTooEarly }
                if log.readBack != 7 { return .writeNotSeenAfterwards }
                return .deferredWrite
            }
        }
        if !holderReturned { return .holderStuck }
        if !operationReturned { return .operationStuck }
        return .waited
    }
}
