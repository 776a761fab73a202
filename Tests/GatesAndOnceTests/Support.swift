import Dispatch
import Foundation
import GatesAndOnce
import KataTestSupport
import Testing

/// How long a check watches for something that must not happen (work running before open): a
/// serial queue or an operation queue starts work within a millisecond here when nothing holds it.
let quietWindow = 0.15

/// `Patience.waitUntil` under this suite's older name: gives up at once with `hopeless`'s reason,
/// records "Deadlock suspected in <place>" only when nothing moved (`progress`, and the condition
/// itself) for `Patience.stall`. For isolated bodies only: it blocks its thread.
@discardableResult
func waitUntil(
    in place: String, waitingFor what: String, hint: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    unless hopeless: () -> String? = { nil }, progress: () -> Int = { 0 }, _ condition: () -> Bool
) -> Bool {
    Patience.waitUntil(
        in: place, waitingFor: what, hint: hint, sourceLocation: sourceLocation,
        unless: hopeless, progress: progress, condition)
}

/// Every call of the work a check submitted to a session: which item, told what, and whether
/// two items ever ran at once.
final class WorkLog: @unchecked Sendable {
    struct Call: Sendable, Equatable {
        let item: Int
        let access: Access
    }

    let calls = Locked([Call]())
    let meter = ConcurrencyMeter()
    /// Ties every submitted closure, so that a check can see at once that the session dropped them.
    let liveness = Liveness()
    private let submitted = Locked(0)

    /// The work for item `item`: records its call, one at a time or not, then runs `then`.
    func work(_ item: Int, then: (@Sendable () -> Void)? = nil) -> @Sendable (Access) -> Void {
        submitted.withLock { $0 += 1 }
        let tied: @Sendable (Access) -> Void = liveness.tie("item \(item)") { [self] (access: Access) in
            meter.measure {
                spin(microseconds: 5)
                calls.withLock { $0.append(Call(item: item, access: access)) }
                then?()
            }
        }
        return tied
    }

    var count: Int { calls.current.count }
    var items: [Int] { calls.current.map(\.item) }

    /// Why the check can stop waiting: some works in `items` were never called, and the session no
    /// longer holds them, so nothing can call them now. Nil while every such work is still held.
    func dropped(_ items: Range<Int>, what: String) -> String? {
        // Which are let go first, then which were called: a work records its call before its
        // closure is released, so one let go and missing from the calls read afterwards was
        // dropped for good (read the other way round, a work running in between looks dropped).
        let released = Set(items.filter { !liveness.isHeld("item \($0)") })
        let called = Set(self.items)
        let missing = items.filter { !called.contains($0) }
        guard !missing.isEmpty, missing.allSatisfy({ released.contains($0) }) else { return nil }
        return "\(what): \(missing.count) of the \(items.count) submitted works were never called, and the session no longer holds them (nothing can call them now). Keep every work until the gate opens; each one is called exactly once, with .granted or .refused."
    }

    /// A description of the order, for messages: the first place where it differs from `expected`.
    func orderProblem(expected: [Int]) -> String? {
        Self.orderProblem(seen: items, expected: expected)
    }

    static func orderProblem(seen: [Int], expected: [Int]) -> String? {
        if seen == expected { return nil }
        let counts = Dictionary(seen.map { ($0, 1) }, uniquingKeysWith: +)
        if let twice = counts.first(where: { $0.value > 1 }) {
            return "item \(twice.key) was called \(twice.value) times"
        }
        if let missing = expected.first(where: { counts[$0] == nil }) {
            return "item \(missing) (and \(expected.count - seen.count) in all) never ran"
        }
        let index = zip(seen, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(seen.count, expected.count) - 1
        return "the order broke at position \(index): item \(seen[index]) ran where item \(expected[index]) was due (\(seen[max(0, index - 2)..<min(seen.count, index + 3)].map(String.init).joined(separator: ", ")) …)"
    }
}

/// A weak reference, to see whether an object was freed.
final class Weak<Object: AnyObject>: @unchecked Sendable {
    weak var value: Object?
    init(_ value: Object? = nil) { self.value = value }
}

/// Stands for a value that is expensive to make: compared by identity.
final class Token: Sendable {
    let serial: Int
    init(_ serial: Int) { self.serial = serial }
}

/// An error an initializer throws on purpose.
struct InitializationFailed: Error, Equatable {
    let attempt: Int
}
