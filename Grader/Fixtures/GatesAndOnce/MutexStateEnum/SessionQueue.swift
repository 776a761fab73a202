import Dispatch
import Foundation
import Synchronization

public enum Access: Sendable, Equatable {
    case granted
    case refused
}

/// A right answer in another style: a state enum in a Mutex, work kept aside while closed and
/// moved onto a plain (never suspended) serial queue under the lock.
public final class SessionQueue: Sendable {
    private enum State {
        case closed([@Sendable (Access) -> Void])
        case decided(Access)
    }

    private let queue: DispatchQueue
    private let state = Mutex(State.closed([]))

    public init(label: String) {
        queue = DispatchQueue(label: label)
    }

    public func async(_ work: @escaping @Sendable (Access) -> Void) {
        state.withLock { state in
            switch state {
            case .closed(var pending):
                pending.append(work)
                state = .closed(pending)
            case .decided(let access):
                queue.async { work(access) }
            }
        }
    }

    public func open(granted: Bool) {
        decide(granted ? .granted : .refused)
    }

    private func decide(_ access: Access) {
        state.withLock { state in
            guard case .closed(let pending) = state else { return }
            state = .decided(access)
            for work in pending { queue.async { work(access) } }
        }
    }

    deinit {
        decide(.refused)
    }
}
