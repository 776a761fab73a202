import Dispatch
import Foundation

// The reference, except that the background work is put on the main queue too: it runs after
// the caller returns, but blocks the main queue (the UI) while it runs.

/// Hops between background work and the main queue.
public enum MainHop {
    /// A value only the main queue carries: how code asks "am I on the main queue?" (a queue's
    /// specific is seen by every block the queue runs, whichever thread drains it).
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// True while the calling code runs on the main queue.
    public static var isOnMainQueue: Bool {
        DispatchQueue.getSpecific(key: mainQueueKey) == true
    }

    /// Runs `work` off the main queue, then `deliver` with its result on the main queue.
    public static func inBackground<T: Sendable>(
        _ work: @escaping @Sendable () -> T, then deliver: @escaping @Sendable (T) -> Void
    ) {
        DispatchQueue.main.async {
            let result = work()
            DispatchQueue.main.async { deliver(result) }
        }
    }

    /// The same, delivering through `OperationQueue.main` (an operation on the main queue).
    public static func inBackgroundThenMainOperation<T: Sendable>(
        _ work: @escaping @Sendable () -> T, then deliver: @escaping @Sendable (T) -> Void
    ) {
        OperationQueue.main.addOperation {
            let result = work()
            OperationQueue.main.addOperation { deliver(result) }
        }
    }

    /// Runs `body` on the main queue and returns its result, from any thread: inline when the
    /// caller is already on the main queue (a `sync` onto the queue you are on never returns).
    public static func onMainAndWait<T>(_ body: () throws -> T) rethrows -> T {
        if isOnMainQueue { return try body() }
        return try DispatchQueue.main.sync(execute: body)
    }
}

/// A value confined to the main queue, like a view: touching it anywhere else is a bug that
/// traps at once, as Xcode's Main Thread Checker would report it.
public final class MainConfined<Value>: @unchecked Sendable {
    private var stored: Value

    /// May be made on any thread; only its `value` is confined.
    public init(_ value: Value) {
        stored = value
    }

    /// Read and written on the main queue only.
    public var value: Value {
        get {
            dispatchPrecondition(condition: .onQueue(.main))
            return stored
        }
        set {
            dispatchPrecondition(condition: .onQueue(.main))
            stored = newValue
        }
    }
}
