import Foundation

/// An `Operation` for asynchronous work: it stays executing after `main()` returns, until the
/// work calls `finish()`.
///
/// Variant "CancelFinishes" for `grader verify`: the reference solution whose `cancel()` marks
/// the operation finished and announces it, whatever its state: while the work still runs its
/// dependents start too early, and `cancel()` after `finish()` announces "isFinished" again.
///
/// Reference solution. The state lives behind a lock. Every change is announced with the real
/// key paths, `willChangeValue(forKey:)` before it and `didChangeValue(forKey:)` after it: KVO on
/// Apple platforms and swift-corelibs-foundation's OperationQueue on Linux both learn from the
/// `did` that the operation started or finished. The notifications are sent outside the lock,
/// because whoever observes them reads `isExecuting`/`isFinished`, which take the lock.
open class AsyncOperation: Operation, @unchecked Sendable {
    public enum State: String, Sendable {
        case ready, executing, finished
    }

    private let lock = NSLock()
    private var storedState = State.ready
    /// Set by the one caller that wins the right to leave a state, so that racing `start()`
    /// or `finish()` calls make exactly one transition and one pair of notifications.
    private var startClaimed = false
    private var finishClaimed = false

    public override init() {
        super.init()
    }

    /// The current state; safe to read from any thread.
    public var state: State {
        lock.lock()
        defer { lock.unlock() }
        return storedState
    }

    open override var isAsynchronous: Bool { true }

    /// Ready when the dependencies are (`super.isReady`) and the operation has not started.
    open override var isReady: Bool { super.isReady && state == .ready }

    open override var isExecuting: Bool { state == .executing }

    open override var isFinished: Bool { state == .finished }

    /// Honours cancellation, enters `.executing`, then calls `main()`.
    open override func start() {
        guard claim(\.startClaimed) else { return }
        if isCancelled {
            // Cancelled before it started: finish without running the work.
            finish()
            return
        }
        willChangeValue(forKey: "isExecuting")
        setState(.executing)
        didChangeValue(forKey: "isExecuting")
        main()
    }

    /// Subclasses start their work here and call `finish()` when it is done.
    open override func main() {}

    /// Marks the operation cancelled. It does not finish it: running work sees `isCancelled`,
    /// stops, and calls `finish()` itself; an operation that has not started finishes when the
    /// queue starts it.
    open override func cancel() {
        super.cancel()
        // The fault: cancelling only asks; this ends the operation, running or already finished.
        let wasExecuting = state == .executing
        if wasExecuting { willChangeValue(forKey: "isExecuting") }
        willChangeValue(forKey: "isFinished")
        setState(.finished)
        didChangeValue(forKey: "isFinished")
        if wasExecuting { didChangeValue(forKey: "isExecuting") }
    }

    /// Moves to `.finished` exactly once, from any thread; later calls do nothing.
    public final func finish() {
        guard claim(\.finishClaimed) else { return }
        let wasExecuting = state == .executing
        if wasExecuting { willChangeValue(forKey: "isExecuting") }
        willChangeValue(forKey: "isFinished")
        setState(.finished)
        didChangeValue(forKey: "isFinished")
        if wasExecuting { didChangeValue(forKey: "isExecuting") }
    }

    private func setState(_ newState: State) {
        lock.lock()
        storedState = newState
        lock.unlock()
    }

    /// Atomically sets a claim flag; true for the one caller that set it.
    private func claim(_ flag: ReferenceWritableKeyPath<AsyncOperation, Bool>) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if self[keyPath: flag] { return false }
        self[keyPath: flag] = true
        return true
    }
}
