import Foundation
import Synchronization

/// A right answer in another style: the state in a Mutex, as a two-case enum and a pause flag.
public final class OperationGate: Sendable {
    private enum Decision { case none, granted, refused }
    private struct State {
        var decision = Decision.none
        var paused = false
    }

    private let queue = OperationQueue()
    private let state = Mutex(State())

    public init() {
        queue.maxConcurrentOperationCount = 1
        queue.isSuspended = true
    }

    public func addOperation(_ operation: Operation) {
        state.withLock { state in
            if state.decision == .refused { operation.cancel() }
            queue.addOperation(operation)
        }
    }

    public func open(granted: Bool) {
        state.withLock { state in
            guard state.decision == .none else { return }
            state.decision = granted ? .granted : .refused
            if !granted { queue.cancelAllOperations() }
            apply(state)
        }
    }

    public func pause() {
        state.withLock { state in
            state.paused = true
            apply(state)
        }
    }

    public func resume() {
        state.withLock { state in
            state.paused = false
            apply(state)
        }
    }

    private func apply(_ state: State) {
        switch state.decision {
        case .none: queue.isSuspended = true
        case .granted: queue.isSuspended = state.paused
        case .refused: queue.isSuspended = false
        }
    }

    deinit {
        let refuse = state.withLock { state -> Bool in
            guard state.decision == .none else { return false }
            state.decision = .refused
            return true
        }
        if refuse {
            queue.cancelAllOperations()
            queue.isSuspended = false
        }
    }
}
