import Dispatch
import Foundation
import KataTripwire

// The untouched stub, with `Tripwire.call()` first in every public entry point: `grader verify`
// runs it with each KATA_MISBEHAVE misbehaviour and asserts 0 points.

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
        Tripwire.call()
        // TODO: a DispatchSpecificKey set once on DispatchQueue.main, read with
        // DispatchQueue.getSpecific(key:).
        return false
    }

    /// Runs `work` off the main queue, then `deliver` with its result on the main queue.
    public static func inBackground<T: Sendable>(
        _ work: @escaping @Sendable () -> T, then deliver: @escaping @Sendable (T) -> Void
    ) {
        Tripwire.call()
        // TODO
    }

    /// The same, delivering through `OperationQueue.main` (an operation on the main queue).
    public static func inBackgroundThenMainOperation<T: Sendable>(
        _ work: @escaping @Sendable () -> T, then deliver: @escaping @Sendable (T) -> Void
    ) {
        Tripwire.call()
        // TODO
    }

    /// Runs `body` on the main queue and returns its result, from any thread: inline when the
    /// caller is already on the main queue.
    public static func onMainAndWait<T>(_ body: () throws -> T) rethrows -> T {
        Tripwire.call()
        // TODO: inline on the main queue, DispatchQueue.main.sync anywhere else.
        return try body()
    }
}

/// A value confined to the main queue, like a view: touching it anywhere else traps at once, as
/// Xcode's Main Thread Checker would report it.
public final class MainConfined<Value>: @unchecked Sendable {
    private var stored: Value

    /// May be made on any thread; only its `value` is confined.
    public init(_ value: Value) {
        Tripwire.call()
        stored = value
    }

    /// Read and written on the main queue only.
    public var value: Value {
        // TODO: trap when not on the main queue (dispatchPrecondition).
        get { Tripwire.call(); return stored }
        set { Tripwire.call(); stored = newValue }
    }
}
