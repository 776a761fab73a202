import Dispatch
import Foundation

/// A right answer in another style: the state as one enum, changed on a private serial queue.
public final class OperationGate: @unchecked Sendable {
    private enum State { case closed, open, paused, refused }
    private let queue = OperationQueue()
    private let guardQueue = DispatchQueue(label: "kata.gate")
    private var state = State.closed

    public init() {
        queue.maxConcurrentOperationCount = 1
        queue.isSuspended = true
    }

    public func addOperation(_ operation: Operation) {
        guardQueue.sync {
            if state == .refused { operation.cancel() }
            queue.addOperation(operation)
        }
    }

    public func open(granted: Bool) {
        guardQueue.sync {
            guard state == .closed else { return }
            if granted {
                state = .open
                queue.isSuspended = false
            } else {
                state = .refused
                queue.cancelAllOperations()
                queue.isSuspended = false
            }
        }
    }

    public func pause() {
        guardQueue.sync {
            if state == .open { state = .paused; queue.isSuspended = true }
        }
    }

    public func resume() {
        guardQueue.sync {
            if state == .paused { state = .open; queue.isSuspended = false }
        }
    }

    deinit {
        if state == .closed {
            queue.cancelAllOperations()
            queue.isSuspended = false
        }
    }
}
