import Foundation
import KataTripwire

// The untouched stub, with `Tripwire.call()` first in every public entry point: `grader verify`
// runs it with each KATA_MISBEHAVE misbehaviour and asserts 0 points.

/// Fan-out and fan-in with one `BlockOperation`, and an operation run by hand outside any queue.
///
/// Your task (see README.md in this folder).
public enum BlockFanOut {
    /// Runs every part as an execution block of one `BlockOperation` on `queue`; `completion`
    /// gets every part's result, in part order, once every block has run.
    public static func run(_ parts: [@Sendable () -> Int], on queue: OperationQueue, completion: @escaping @Sendable ([Int]) -> Void) {
        Tripwire.call()
        // TODO: one BlockOperation, one addExecutionBlock per part, a completionBlock, then queue it.
    }

    /// Runs `operation` on the calling thread, outside any queue, and returns once it is finished
    /// (also when it is asynchronous and its start() returns before its work is done).
    public static func runStandalone(_ operation: Operation) {
        Tripwire.call()
        // TODO: start() by hand, then wait until the operation is finished.
    }
}
