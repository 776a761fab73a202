import Foundation

/// The reference's design with no lock: the state is read and written by every caller at once.
public final class OperationGate: @unchecked Sendable {
    private enum Gate { case closed, granted, refused }

    private let queue: OperationQueue
    private var gate = Gate.closed
    private var paused = false

    public init() {
        queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.isSuspended = true
    }

    public func addOperation(_ operation: Operation) {
        if gate == .refused { operation.cancel() }
        queue.addOperation(operation)
    }

    public func open(granted: Bool) {
        guard gate == .closed else { return }
        gate = granted ? .granted : .refused
        if !granted { queue.cancelAllOperations() }
        queue.isSuspended = suspended
    }

    public func pause() {
        paused = true
        queue.isSuspended = suspended
    }

    public func resume() {
        paused = false
        queue.isSuspended = suspended
    }

    private var suspended: Bool {
        switch gate {
        case .closed: true
        case .granted: paused
        case .refused: false
        }
    }

    deinit {
        if gate == .closed {
            gate = .refused
            queue.cancelAllOperations()
            queue.isSuspended = false
        }
    }
}
