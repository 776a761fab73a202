import Dispatch
import Synchronization

/// How the gate was opened.
public enum Access: Sendable, Equatable {
    case granted
    case refused
}

/// Model-mode right implementation in another style (one the catch-rate notes in
/// `Tests/GatesAndOnceTests/MAINTAINERS.md` name: "a `SessionQueue` that keeps its work in an array
/// behind a `Mutex`, never suspends, and moves the work to a serial queue under the lock"): a state
/// enum in a `Mutex`; while closed, work is kept; the decision moves it to the queue, in order,
/// before anything submitted later can be.
public final class SessionQueue: @unchecked Sendable {
    private enum State {
        case closed([@Sendable (Access) -> Void])
        case open(Access)
    }

    private let queue: DispatchQueue
    private let state = Mutex<State>(.closed([]))

    public init(label: String) {
        queue = DispatchQueue(label: label)
    }

    public func async(_ work: @escaping @Sendable (Access) -> Void) {
        let queue = self.queue
        state.withLock { state in
            switch state {
            case .closed(var kept):
                kept.append(work)
                state = .closed(kept)
            case .open(let access):
                queue.async { work(access) }
            }
        }
    }

    public func open(granted: Bool) {
        decide(granted ? .granted : .refused)
    }

    private func decide(_ access: Access) {
        let queue = self.queue
        state.withLock { state in
            guard case .closed(let kept) = state else { return }
            state = .open(access)
            for work in kept { queue.async { work(access) } }
        }
    }

    deinit {
        decide(.refused)
    }
}
