import Foundation
import KataTripwire

/// An `Operation` for asynchronous work: it stays executing after `main()` returns, until the
/// work calls `finish()`.
///
/// Your task (see README.md in this folder): a small state machine, ready → executing → finished,
/// that
/// - keeps its state behind a lock (or a private serial queue), safe to read from any thread;
/// - announces every change with the real key paths: `willChangeValue(forKey: "isExecuting")`
///   before the change, `didChangeValue(forKey: "isExecuting")` after it, and the same for
///   `"isFinished"`. OperationQueue learns that the operation started and finished only from
///   these notifications;
/// - honours cancellation in `start()`.
///
/// Every member below is a stub that compiles and never crashes: replace each body. Run
/// `swift test --filter AsyncOperationTests` to see which check to work on next, and
/// `swift run grader hint AsyncOperation` for a hint.
open class AsyncOperation: Operation, @unchecked Sendable {
    public enum State: String, Sendable {
        case ready, executing, finished
    }

    // TODO: stored state, and the lock that protects it.

    public override init() {
        Tripwire.call()
        super.init()
    }

    /// The current state; safe to read from any thread.
    public var state: State {
        Tripwire.call()
        return .ready  // TODO: read the stored state under the lock.
    }

    /// An asynchronous operation returns from `start()` before its work is done.
    open override var isAsynchronous: Bool { Tripwire.call(); return false }  // TODO

    /// Ready when the dependencies are (`super.isReady`) and the operation has not started.
    open override var isReady: Bool { Tripwire.call(); return super.isReady }  // TODO

    open override var isExecuting: Bool { Tripwire.call(); return false }  // TODO: derive from `state`.

    open override var isFinished: Bool { Tripwire.call(); return false }  // TODO: derive from `state`.

    /// Honours cancellation (a cancelled operation finishes without running `main()`), enters
    /// `.executing` with its notifications, then calls `main()`.
    open override func start() {
        Tripwire.call()
        // TODO
    }

    /// Subclasses start their work here and call `finish()` when it is done.
    open override func main() { Tripwire.call() }

    /// Marks the operation cancelled. Running work sees `isCancelled` and calls `finish()`
    /// itself: `cancel()` must not finish an operation whose work is still running.
    open override func cancel() {
        Tripwire.call()
        super.cancel()  // TODO: is anything else needed? (Read the README first.)
    }

    /// Moves to `.finished` exactly once, with its notifications, from any thread; repeated or
    /// simultaneous calls do nothing more.
    public final func finish() {
        Tripwire.call()
        // TODO
    }
}
