import Foundation

/// A value computed on first use, exactly once, however many threads ask for it at the same time:
/// what `static let` does for a global, and `dispatch_once` did in Objective-C, for a value that
/// belongs to an instance.
///
/// Reference solution. One `NSCondition` guards the state. The first caller marks the box as
/// initializing (recording its thread), runs the initializer *outside* the lock (so that a slow
/// initializer does not hold a lock, and may read other boxes), and stores the value. Callers that
/// arrive meanwhile wait on the condition and get that value. A throwing initializer stores
/// nothing: its caller gets the error, the waiters wake up, and the next caller tries again. The
/// thread that is initializing and asks again (the initializer reading its own box) would wait
/// for itself forever: that is a precondition failure, with a message, instead of a deadlock.
public final class Lazy<Value: Sendable>: @unchecked Sendable {
    private let initializer: @Sendable () throws -> Value
    private let condition = NSCondition()
    private var stored: Value?
    /// The thread running the initializer, while one does.
    private var initializingThread: Thread?

    /// Keeps `initializer`; it is not called here.
    public init(_ initializer: @escaping @Sendable () throws -> Value) {
        self.initializer = initializer
    }

    /// The value: computed by the first caller, from then on the same value for everyone.
    /// Rethrows what the initializer throws; a failed initialization is not remembered.
    public var value: Value {
        get throws {
            condition.lock()
            while true {
                if let stored {
                    condition.unlock()
                    return stored
                }
                guard let initializing = initializingThread else { break }
                precondition(
                    initializing !== Thread.current,
                    "Lazy: the initializer asked for the value it is computing (re-entrant use). It would wait for itself forever.")
                condition.wait()
            }
            initializingThread = Thread.current
            condition.unlock()

            let result = Result { try initializer() }

            condition.lock()
            initializingThread = nil
            if case .success(let value) = result { stored = value }
            condition.broadcast()
            condition.unlock()
            return try result.get()
        }
    }
}
