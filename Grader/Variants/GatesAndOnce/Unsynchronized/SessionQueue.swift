import Dispatch

/// What a piece of work submitted to a `SessionQueue` is told when its turn comes.
public enum Access: Sendable, Equatable {
    case granted
    case refused
}

/// The reference's design with no synchronization at all: the decision is a plain variable,
/// read and written by the openers, the blocks and deinit without a lock. One thread at a time it
/// is right; two openers at once may both resume (a trap) and the blocks race with the opener.
public final class SessionQueue: @unchecked Sendable {
    private final class Decision: @unchecked Sendable {
        var access: Access?
    }

    private let queue: DispatchQueue
    private let decision = Decision()

    public init(label: String) {
        queue = DispatchQueue(label: label)
        queue.suspend()
    }

    public func async(_ work: @escaping @Sendable (Access) -> Void) {
        let decision = self.decision
        queue.async { work(decision.access ?? .refused) }
    }

    public func open(granted: Bool) {
        guard decision.access == nil else { return }
        decision.access = granted ? .granted : .refused
        queue.resume()
    }

    deinit {
        if decision.access == nil {
            decision.access = .refused
            queue.resume()
        }
    }
}
