import Foundation
import KataTripwire

extension OperationQueue {
    /// Adds `operation` and returns when it has finished; cancelling the task cancels the
    /// operation and then throws CancellationError (once the operation has finished).
    ///
    /// Wait for the operation without blocking a thread (no `waitUntilFinished()` here: see the
    /// README), and leave the operation's dependencies and `completionBlock` to the caller.
    public func run(_ operation: Operation) async throws {
        Tripwire.call()
        // TODO: add the operation, suspend until it has finished, and cancel it if the task is cancelled.
        throw NotImplementedYet("OperationQueue.run(_:)")
    }
}
