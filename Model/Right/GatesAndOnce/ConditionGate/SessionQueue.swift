import Dispatch
import Foundation

/// How the gate was opened.
public enum Access: Sendable, Equatable {
    case granted
    case refused
}

/// Model-mode right implementation in another style (one the catch-rate notes in
/// `Tests/GatesAndOnceTests/MAINTAINERS.md` name: "an `NSCondition` gate, each block waits for the
/// decision"): the queue is never suspended; each block, when its turn comes, waits on a condition
/// until the decision is made. The serial queue keeps the order; the first waiting block holds the
/// others back.
public final class SessionQueue: @unchecked Sendable {
    private final class Gate: @unchecked Sendable {
        private let condition = NSCondition()
        private var access: Access?

        func decide(_ value: Access) {
            condition.lock()
            defer { condition.unlock() }
            guard access == nil else { return }
            access = value
            condition.broadcast()
        }

        func waitForDecision() -> Access {
            condition.lock()
            defer { condition.unlock() }
            while access == nil { condition.wait() }
            return access ?? .refused
        }
    }

    private let queue: DispatchQueue
    private let gate = Gate()

    public init(label: String) {
        queue = DispatchQueue(label: label)
    }

    public func async(_ work: @escaping @Sendable (Access) -> Void) {
        let gate = self.gate
        queue.async { work(gate.waitForDecision()) }
    }

    public func open(granted: Bool) {
        gate.decide(granted ? .granted : .refused)
    }

    deinit {
        gate.decide(.refused)
    }
}
