import Dispatch
import Foundation

/// Hops between background work and the main queue.
///
/// Your task (see README.md in this folder):
/// - `inBackground` runs the work off the main queue (a global queue) and returns at once; the
///   result is then delivered on the main queue.
/// - `inBackgroundThenMainOperation` does the same, delivering through `OperationQueue.main`.
/// - `onMainAndWait` runs its body on the main queue and returns the body's result, from any
///   thread; called from the main queue itself, it runs the body inline (a `sync` onto the queue
///   you are on never returns).
/// - Ask the queue, not the thread: the main queue is not always drained by the main thread.
public enum MainHop {
    /// True while the calling code runs on the main queue.
    public static var isOnMainQueue: Bool {
        // TODO: a DispatchSpecificKey set once on DispatchQueue.main, read with
        // DispatchQueue.getSpecific(key:).
        false
    }

    /// Runs `work` off the main queue, then `deliver` with its result on the main queue.
    public static func inBackground<T: Sendable>(
        _ work: @escaping @Sendable () -> T, then deliver: @escaping @Sendable (T) -> Void
    ) {
        // TODO
    }

    /// The same, delivering through `OperationQueue.main` (an operation on the main queue).
    public static func inBackgroundThenMainOperation<T: Sendable>(
        _ work: @escaping @Sendable () -> T, then deliver: @escaping @Sendable (T) -> Void
    ) {
        // TODO
    }

    /// Runs `body` on the main queue and returns its result, from any thread: inline when the
    /// caller is already on the main queue.
    public static func onMainAndWait<T>(_ body: () throws -> T) rethrows -> T {
        // TODO: inline on the main queue, DispatchQueue.main.sync anywhere else.
        try body()
    }
}

/// A value confined to the main queue, like a view: touching it anywhere else traps at once, as
/// Xcode's Main Thread Checker would report it.
public final class MainConfined<Value>: @unchecked Sendable {
    private var stored: Value

    /// May be made on any thread; only its `value` is confined.
    public init(_ value: Value) {
        stored = value
    }

    /// Read and written on the main queue only.
    public var value: Value {
        // TODO: trap when not on the main queue (dispatchPrecondition).
        get { stored }
        set { stored = newValue }
    }
}
