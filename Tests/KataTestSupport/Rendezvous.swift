import Foundation

/// A one-shot meeting point: proves that `parties` threads were inside some region at once.
///
/// "Readers run concurrently" is checked by making two readers meet inside their read bodies:
/// with an implementation that lets one reader in at a time, the meeting can never happen, and
/// the shared deadline makes every party give up at the same moment instead of one after another.
public final class Rendezvous: @unchecked Sendable {
    public let parties: Int
    private let condition = NSCondition()
    private var arrived = 0
    private let deadline: Date

    /// `seconds` is one shared deadline for all parties, counted from now.
    public init(parties: Int, seconds: Double = Deadline.defaultSeconds) {
        self.parties = parties
        self.deadline = Date(timeIntervalSinceNow: seconds)
    }

    /// Arrives and waits for the others; true if all `parties` arrived before the deadline.
    @discardableResult
    public func arriveAndWait() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        if arrived >= parties {
            condition.broadcast()
            return true
        }
        while arrived < parties {
            if !condition.wait(until: deadline) { return arrived >= parties }
        }
        return true
    }

    /// How many parties have arrived so far.
    public var arrivals: Int {
        condition.lock()
        defer { condition.unlock() }
        return arrived
    }
}
