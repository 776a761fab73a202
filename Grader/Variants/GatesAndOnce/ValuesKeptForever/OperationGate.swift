import Foundation

/// The same gate for `Operation`s, on an `OperationQueue` and its `isSuspended`.
///
/// Reference solution. The queue runs one operation at a time, in the order added, and is
/// suspended while the gate is closed or paused. `isSuspended` is a flag, not a counter: setting
/// it twice is harmless (unlike `DispatchQueue.suspend()`/`resume()`), and setting it stops the
/// queue from *starting* operations; one already executing runs to its end.
///
/// A refusal cancels every operation before the queue is let go: a cancelled operation is still
/// started by the queue, sees `isCancelled`, and finishes at once without running its work. The
/// state is decided and operations are added under one lock, so an operation added while another
/// thread refuses is either cancelled by the refusal or cancelled as it is added.
public final class OperationGate: @unchecked Sendable {
    private enum Gate { case closed, granted, refused }
    private struct State {
        var gate = Gate.closed
        var paused = false
    }

    private let queue: OperationQueue
    private let lock = NSLock()
    private var state = State()

    /// Runs `body` on the state under the lock.
    private func withState<R>(_ body: (inout State) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    /// A closed gate: operations wait until `open(granted:)`.
    public init() {
        queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.isSuspended = true
    }

    /// Adds `operation`: it runs after every operation added before it, once the gate is open and
    /// not paused; after a refusal it is cancelled, and finishes without running.
    public func addOperation(_ operation: Operation) {
        withState { state in
            if state.gate == .refused { operation.cancel() }
            queue.addOperation(operation)
        }
    }

    /// The first call decides, from any thread; later calls do nothing. Refused: every operation,
    /// waiting or added later, is cancelled and finishes without running.
    public func open(granted: Bool) {
        withState { state in
            guard state.gate == .closed else { return }
            state.gate = granted ? .granted : .refused
            if !granted { queue.cancelAllOperations() }  // before the queue may start any
            queue.isSuspended = Self.suspended(state)
        }
    }

    /// Operations not yet started wait; one that is executing runs to its end (pause() does not
    /// wait for it). Pausing twice is pausing.
    public func pause() {
        withState { state in
            state.paused = true
            queue.isSuspended = Self.suspended(state)
        }
    }

    /// Ends a pause. Never opens a gate that was not opened with access.
    public func resume() {
        withState { state in
            state.paused = false
            queue.isSuspended = Self.suspended(state)
        }
    }

    /// Suspended while closed, or granted and paused. Refused operations always drain, so that
    /// each one finishes (cancelled) and its owner hears of it.
    private static func suspended(_ state: State) -> Bool {
        switch state.gate {
        case .closed: true
        case .granted: state.paused
        case .refused: false
        }
    }

    deinit {
        // An OperationQueue released while suspended does not trap, but its operations would
        // never run nor finish: refuse them, so that each one finishes cancelled.
        let refuse = withState { state -> Bool in
            guard state.gate == .closed else { return false }
            state.gate = .refused
            return true
        }
        if refuse {
            queue.cancelAllOperations()
            queue.isSuspended = false
        }
    }
}
