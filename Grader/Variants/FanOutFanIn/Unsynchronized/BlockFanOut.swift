import Foundation

/// Fan-out and fan-in with one `BlockOperation`, and an operation run by hand outside any queue.
public enum BlockFanOut {
    /// Runs every part as an execution block of one `BlockOperation` on `queue`; `completion`
    /// gets every part's result, in part order, once every block has run.
    ///
    /// All blocks are added before the operation is queued: a block added once it started is a
    /// `fatalError` in swift-corelibs-foundation (`BlockOperation.addExecutionBlock`: "blocks
    /// cannot be added after the operation has started executing or finished") and an exception
    /// on Apple platforms. The blocks run one after another in swift-corelibs-foundation
    /// (`BlockOperation.main` calls them in a loop) and concurrently on Apple platforms: each
    /// writes its own slot under a lock.
    public static func run(_ parts: [@Sendable () -> Int], on queue: OperationQueue, completion: @escaping @Sendable ([Int]) -> Void) {
        let slots = Slots(count: parts.count)
        let operation = BlockOperation()
        for (index, part) in parts.enumerated() {
            operation.addExecutionBlock { slots.set(index, part()) }
        }
        // The completion block runs once the operation is finished, so after every block.
        operation.completionBlock = { completion(slots.values) }
        queue.addOperation(operation)
    }

    /// Runs `operation` on the calling thread, outside any queue, and returns once it is finished.
    ///
    /// `start()` by hand runs a synchronous operation's `main()` to its end before it returns; an
    /// asynchronous operation's `start()` only begins its work and returns while it is executing.
    /// A dependent operation on a private queue is told when it finishes (on Linux too, where
    /// there is no KVO: swift-corelibs-foundation's `didChangeValue(forKey: "isFinished")`).
    public static func runStandalone(_ operation: Operation) {
        let finished = DispatchSemaphore(value: 0)
        let watcher = BlockOperation { finished.signal() }
        watcher.addDependency(operation)
        let queue = OperationQueue()
        queue.addOperation(watcher)
        operation.start()
        finished.wait()
    }
}

/// One result slot per part, written by the blocks and read by the completion.
private final class Slots: @unchecked Sendable {
    private let lock = NoLock()
    private var slots: [Int?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: Int) { lock.withLock { slots[index] = value } }

    var values: [Int] { lock.withLock { slots.compactMap { $0 } } }
}
