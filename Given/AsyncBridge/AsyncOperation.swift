import Foundation

/// Given, finished: an `Operation` for asynchronous work, correct under real KVO on Apple
/// platforms and under swift-corelibs-foundation on Linux. (Writing it is exercise 2; here it is
/// for trying `OperationQueue.run(_:)`.)
///
/// Subclasses start their work in `main()` and call `finish()` when it is done, on any thread.
open class AsyncOperation: Operation, @unchecked Sendable {
    public enum State: String, Sendable { case ready, executing, finished }

    private let lock = NSLock()
    private var storedState = State.ready
    private var started = false
    private var finishing = false

    public override init() { super.init() }

    public var state: State {
        lock.lock()
        defer { lock.unlock() }
        return storedState
    }

    open override var isAsynchronous: Bool { true }
    open override var isReady: Bool { super.isReady && state == .ready }
    open override var isExecuting: Bool { state == .executing }
    open override var isFinished: Bool { state == .finished }

    open override func start() {
        guard firstCall(of: \.started) else { return }
        if isCancelled {
            finish()
            return
        }
        willChangeValue(forKey: "isExecuting")
        set(.executing)
        didChangeValue(forKey: "isExecuting")
        main()
    }

    open override func main() {}

    /// Moves to `.finished` exactly once; later calls do nothing.
    public final func finish() {
        guard firstCall(of: \.finishing) else { return }
        let wasExecuting = state == .executing
        if wasExecuting { willChangeValue(forKey: "isExecuting") }
        willChangeValue(forKey: "isFinished")
        set(.finished)
        didChangeValue(forKey: "isFinished")
        if wasExecuting { didChangeValue(forKey: "isExecuting") }
    }

    private func set(_ state: State) {
        lock.lock()
        storedState = state
        lock.unlock()
    }

    private func firstCall(of flag: ReferenceWritableKeyPath<AsyncOperation, Bool>) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if self[keyPath: flag] { return false }
        self[keyPath: flag] = true
        return true
    }
}
