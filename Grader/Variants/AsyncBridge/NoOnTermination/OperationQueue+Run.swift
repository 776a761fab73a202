import Foundation

extension OperationQueue {
    /// Adds `operation` and returns when it has finished; cancelling the task cancels the
    /// operation and then throws CancellationError (once the operation has finished).
    ///
    /// How to learn that an operation finished without blocking a thread: a second operation
    /// that depends on it. It becomes ready when `operation` finishes (normally or cancelled),
    /// and its only job is to resume the continuation. It runs on a private queue, so a suspended
    /// or width-limited `self` cannot keep it from running, and it never touches
    /// `completionBlock`, which belongs to the caller.
    public func run(_ operation: Operation) async throws {
        let finished = BlockOperation()
        finished.addDependency(operation)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // A BlockOperation runs its block once, so the continuation is resumed once.
                finished.addExecutionBlock { continuation.resume() }
                OperationQueue.finishWatchers.addOperation(finished)
                addOperation(operation)
            }
        } onCancel: {
            // Only ask: the operation decides when it is done, and we wait for that.
            operation.cancel()
        }
        // The operation has finished. If our task was cancelled meanwhile, say so.
        try Task.checkCancellation()
    }

    /// Where the watchers run: they only resume a continuation, so any width will do.
    private static let finishWatchers: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "OperationQueue.run finish watchers"
        return queue
    }()
}
