import Dispatch
import Foundation

/// What a piece of work submitted to a `SessionQueue` is told when its turn comes.
public enum Access: Sendable, Equatable {
    case granted
    case refused
}

/// Two reflexes that look right and are not, each caught by a check of its own: work kept in an
/// array while closed, refused work called inline inside `open(granted: false)`, on the caller's
/// thread, under the lock (a refused work that queues a retry deadlocks); and blocks that read the
/// decision through `[weak self]`, so that work running after the session was released hears
/// `.refused` although access was granted. Everything else is locked and right.
public final class SessionQueue: @unchecked Sendable {
    private let queue: DispatchQueue
    private let lock = NSLock()
    private var decision: Access?
    private var pending: [@Sendable (Access) -> Void] = []

    public init(label: String) {
        queue = DispatchQueue(label: label)
    }

    private var current: Access? {
        lock.lock()
        defer { lock.unlock() }
        return decision
    }

    private func enqueue(_ work: @escaping @Sendable (Access) -> Void) {
        queue.async { [weak self] in work(self?.current ?? .refused) }
    }

    public func async(_ work: @escaping @Sendable (Access) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        if decision != nil {
            enqueue(work)
        } else {
            pending.append(work)
        }
    }

    public func open(granted: Bool) {
        lock.lock()
        defer { lock.unlock() }
        guard decision == nil else { return }
        decision = granted ? .granted : .refused
        if granted {
            for work in pending { enqueue(work) }
        } else {
            for work in pending { work(.refused) }
        }
        pending = []
    }

    deinit {
        let queue = self.queue
        for work in pending { queue.async { work(.refused) } }
    }
}
