import Foundation
import KataTestSupport
import Testing
import ThreadSafeDictionary

extension DictionaryOperation: CustomTestStringConvertible {
    var testDescription: String { description }
}

/// Exclusion, operation by operation, decided by events instead of luck: one side is parked inside
/// the dictionary (a writer inside `mutate`, or a reader inside `read`), the operation under test is
/// called from another thread, and it must not get in until the parked body is released.
///
/// An asynchronous barrier write (`queue.async(flags: .barrier)`) may make `subscript set` return at
/// once: that is accepted when its value is not visible before the parked body leaves and a read
/// issued after it on the same thread sees it.
@Suite("Exclusion, operation by operation", .exitIsAFailure)
struct ExclusionTests {
    @Test("Every operation waits while a writer is inside mutate", arguments: DictionaryOperation.allCases)
    func operationsWaitForWriters(_ operation: DictionaryOperation) async {
        let place = "\(operation) while a writer is inside mutate"
        // Nothing to protect yet (the untouched stub): say so at once, without a child process.
        guard EntriesKept.orRecord(checking: "\(operation) against a writer inside mutate") else { return }
        let ending = await ExclusionTests.isolated(operation, while: .writerInMutate)
        IsolatedCheck.explain(
            ending, in: place,
            crashHint: "A crash here usually means \(operation) touched the storage while mutate was changing it.")
    }

    @Test("Every write waits while a reader is inside read", arguments: DictionaryOperation.writers)
    func writesWaitForReaders(_ operation: DictionaryOperation) async {
        let place = "\(operation) while a reader is inside read"
        // Nothing to protect yet (the untouched stub): say so at once, without a child process.
        guard EntriesKept.orRecord(checking: "\(operation) against a reader inside read") else { return }
        let ending = await ExclusionTests.isolated(operation, while: .readerInRead)
        IsolatedCheck.explain(
            ending, in: place,
            crashHint: "A crash here usually means \(operation) changed the storage while a reader was reading it.")
    }

    /// Runs `check(operation, while: side)` in a child process of its own. An exit test's body
    /// captures nothing before Swift 6.3 (capture lists there are proposal ST-0012, Swift 6.3), so
    /// each case has a body of its own that names its operation literally.
    static func isolated(_ operation: DictionaryOperation, while side: HeldSide) async -> ExitTest.Result? {
        switch (side, operation) {
        case (.writerInMutate, .get): return await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) { ExclusionTests.child(.get, .writerInMutate) }
        case (.writerInMutate, .set): return await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) { ExclusionTests.child(.set, .writerInMutate) }
        case (.writerInMutate, .removeValue): return await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) { ExclusionTests.child(.removeValue, .writerInMutate) }
        case (.writerInMutate, .count): return await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) { ExclusionTests.child(.count, .writerInMutate) }
        case (.writerInMutate, .isEmpty): return await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) { ExclusionTests.child(.isEmpty, .writerInMutate) }
        case (.writerInMutate, .snapshot): return await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) { ExclusionTests.child(.snapshot, .writerInMutate) }
        case (.writerInMutate, .withValue): return await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) { ExclusionTests.child(.withValue, .writerInMutate) }
        case (.writerInMutate, .valueOrInsert): return await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) { ExclusionTests.child(.valueOrInsert, .writerInMutate) }
        case (.writerInMutate, .mutate): return await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) { ExclusionTests.child(.mutate, .writerInMutate) }
        case (.writerInMutate, .read): return await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) { ExclusionTests.child(.read, .writerInMutate) }
        case (.readerInRead, .set): return await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) { ExclusionTests.child(.set, .readerInRead) }
        case (.readerInRead, .removeValue): return await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) { ExclusionTests.child(.removeValue, .readerInRead) }
        case (.readerInRead, .withValue): return await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) { ExclusionTests.child(.withValue, .readerInRead) }
        case (.readerInRead, .valueOrInsert): return await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) { ExclusionTests.child(.valueOrInsert, .readerInRead) }
        case (.readerInRead, .mutate): return await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) { ExclusionTests.child(.mutate, .readerInRead) }
        case (.readerInRead, .get), (.readerInRead, .count), (.readerInRead, .isEmpty), (.readerInRead, .snapshot), (.readerInRead, .read):
            // Readers may run beside a reader: `writesWaitForReaders` asks this of writes only.
            Issue.record("\(operation) is not a write; only writes are checked against a reader inside read.")
            return nil
        }
    }

    /// The body of one isolated case.
    static func child(_ operation: DictionaryOperation, _ side: HeldSide) -> Never {
        IsolatedCheck.begin(in: "\(operation) while \(side == .writerInMutate ? "a writer is inside mutate" : "a reader is inside read")")
        check(operation, while: side)
        IsolatedCheck.finish()
    }

    /// Probes `operation`; on a failure, records one message that says what happened, which side
    /// is at fault, and every operation of this check that fails.
    static func check(_ operation: DictionaryOperation, while side: HeldSide) {
        let finding = ExclusionProbe.probe(operation, while: side)
        guard !finding.isRight else { return }
        let message = explanation(of: finding, for: operation, while: side)
        Issue.record(Comment(rawValue: message + " " + failingList(besides: operation, while: side)))
    }

    static func explanation(of finding: ProbeFinding, for operation: DictionaryOperation, while side: HeldSide) -> String {
        let prompt = Int(Deadline.promptSeconds)
        let settle = Int(ExclusionProbe.settleSeconds)
        switch finding {
        case .waited, .deferredWrite:
            return ""
        case .holderNeverStarted:
            return side == .writerInMutate
                ? "mutate did not run its body within \(prompt) s, so \(operation) could not be checked against a writer: mutate must call its body with the stored entries."
                : "read did not run its body within \(prompt) s, so \(operation) could not be checked against a reader: read must call its body with the stored entries."
        case .holderStuck:
            return "Deadlock suspected in \(side == .writerInMutate ? "mutate" : "read"): its body was released but it did not return within \(settle) s while \(operation) was waiting."
        case .operationStuck:
            return "Deadlock suspected in \(operation): it did not return within \(settle) s after the \(side == .writerInMutate ? "writer inside mutate" : "reader inside read") left."
        case .writeNotSeenAfterwards:
            return "subscript set returned while \(side.words), and a read issued after it on the same thread did not see the new value: a write may return before it is done (async(flags: .barrier)) only if it stays in order with the reads that follow it on the same queue."
        case .gotIn, .returnedWhileHeld, .writeVisibleTooEarly:
            return side == .writerInMutate ? blameAgainstWriter(operation, finding) : blameAgainstReader(operation, finding)
        }
    }

    /// `operation` got in while a writer was inside mutate: either it skips the protection, or
    /// mutate does not keep anyone out (then a second mutate gets in too).
    static func blameAgainstWriter(_ operation: DictionaryOperation, _ finding: ProbeFinding) -> String {
        let what = finding == .writeVisibleTooEarly
            ? "subscript set's new value was visible"
            : observed(operation, finding)
        if operation == .mutate {
            return "A writer was inside mutate's body while another mutate ran: writers must be alone. Write with sync(flags: .barrier) on your private concurrent queue (a plain sync lets writers run together), or take a write lock."
        }
        let secondWriter = ExclusionProbe.probe(
            .mutate, while: .writerInMutate, grace: ExclusionProbe.listingGrace, settle: ExclusionProbe.listingSettleSeconds)
        if !secondWriter.isRight {
            return "\(what) while a writer was inside mutate, and so did a second mutate: mutate does not keep others out while its body runs. Make mutate exclusive (sync(flags: .barrier) on your private concurrent queue, or a write lock)."
        }
        if operation == .valueOrInsert {
            return "\(what) while a writer was inside mutate: its first look read the storage during a write. A double-checked insert may look first with a shared read and again inside the exclusive write, but both looks go through the protection (queue.sync, then sync(flags: .barrier)): a first look without it reads the storage while a writer changes it."
        }
        return "\(what) while a writer was inside mutate: it did not wait for the writer to leave. Likely causes: \(operation) skips the protection mutate uses (the private queue, or the lock), or looks at the storage before taking it. \(operation) must go through the same protection as mutate, so that it waits until the writer leaves."
    }

    /// What the probe saw `operation` do while the other side was held inside: only that.
    static func observed(_ operation: DictionaryOperation, _ finding: ProbeFinding) -> String {
        switch (finding, operation.hasBody) {
        case (.gotIn, _): "\(operation)'s body ran"
        case (_, true) where operation == .valueOrInsert: "value(forKey:orInsert:) returned without running its body"
        case (_, true): "\(operation) returned before its body had run (if it runs the body later, asynchronously, that is a fault of its own: the body must have run when \(operation) returns)"
        default: "\(operation) returned"
        }
    }

    /// `operation` got in while a reader was inside read's body: either the write skips the
    /// protection, or read runs its body outside it (then even mutate, which keeps other writers
    /// out, gets in).
    static func blameAgainstReader(_ operation: DictionaryOperation, _ finding: ProbeFinding) -> String {
        let probes = ExclusionProbe.probeAll([(.mutate, .readerInRead), (.mutate, .writerInMutate)], grace: ExclusionProbe.listingGrace)
        let mutateBesideReader = operation == .mutate ? finding : probes[0]
        let mutateBesideWriter = probes[1]
        if mutateBesideReader?.isRight == false && mutateBesideWriter?.isRight == true {
            return "A reader was inside read's body while \(operation) ran, though mutate keeps other writers out: read must keep writers out while its body runs. Call the body inside the protected region (queue.sync { try body(storage) }, or under the read lock), not on a copy after leaving it."
        }
        let what = finding == .writeVisibleTooEarly ? "its value could be read" : observed(operation, finding)
        return "\(operation) did not wait for the reader inside read's body: \(what) while the reader was inside. Likely causes: the write skips the protection read uses, or looks at the storage before taking it. A write must wait for the readers inside to leave and keep them out until it is done: sync(flags: .barrier) on your private concurrent queue (a plain sync runs beside readers, and a barrier on a global queue is ignored), or a write lock."
    }

    /// The other operations of the same check that fail too, probed all at once (each on its own
    /// dictionary): the check earns its points only when every one of them waits.
    static func failingList(besides operation: DictionaryOperation, while side: HeldSide) -> String {
        let candidates = side == .writerInMutate ? DictionaryOperation.allCases : DictionaryOperation.writers
        let others = candidates.filter { $0 != operation }
        let findings = ExclusionProbe.probeAll(others.map { ($0, side) }, grace: ExclusionProbe.listingGrace)
        var failing: Set<DictionaryOperation> = [operation]
        for (other, finding) in zip(others, findings) where finding?.isRight != true { failing.insert(other) }
        let names = candidates.filter(failing.contains).map(\.description)
        return "Operations that fail this check: \(names.joined(separator: ", "))."
    }
}
