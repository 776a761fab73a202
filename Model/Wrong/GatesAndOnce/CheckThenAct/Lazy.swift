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
/// Model-mode wrong implementation "CheckThenAct" (not a grader variant): the check and the
/// store are two locked sections with the initializer run between them, unlocked.
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
            // WRONG: look under the lock, let it go, compute, then store: two readers that both
            // look before either stores both run the initializer.
            condition.lock()
            if let stored {
                condition.unlock()
                return stored
            }
            condition.unlock()
            let made = try initializer()
            condition.lock()
            defer { condition.unlock() }
            if stored == nil { stored = made }
            return stored ?? made
        }
    }
}
