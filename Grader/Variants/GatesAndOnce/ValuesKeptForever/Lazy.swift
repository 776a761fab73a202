import Foundation

/// A value computed on first use, exactly once, however many threads ask for it at the same time:
/// what `static let` does for a global, and `dispatch_once` did in Objective-C, for a value that
/// belongs to an instance.
///
/// Grader variant "ValuesKeptForever": the reference solution, except that the value is not kept
/// in the box: each box takes a token (a number from a global counter, as a `dispatch_once_t` is a
/// token) and stores its value in a global table under it, never removed. Every box's value lives
/// as long as the process (keyed by `ObjectIdentifier(self)` instead, a new box at a freed box's
/// address would also read the old value). Once per box and thread-safe, so only the check that
/// lets a box go (the one-thread check) sees it: the value outlives its box.
///
/// What follows is the reference's own description.
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
    /// The box's token in the global table of values.
    private let token = onceTable.newToken()
    /// The bug: the value lives in the global table, never removed, not in the box.
    private var stored: Value? {
        get { onceTable.value(for: token) as? Value }
        set { onceTable.store(newValue, for: token) }
    }
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

/// Every box's value, by token, for as long as the process lives.
private final class OnceTable: @unchecked Sendable {
    /// Foundation's own lock, named so: in the model's build a plain `NSLock` is a twin that
    /// belongs to one model run, and this table outlives every run.
    private let lock = Foundation.NSLock()
    private var lastToken = 0
    private var values: [Int: Any] = [:]

    func newToken() -> Int {
        lock.lock()
        defer { lock.unlock() }
        lastToken += 1
        return lastToken
    }

    func value(for token: Int) -> Any? {
        lock.lock()
        defer { lock.unlock() }
        return values[token]
    }

    func store(_ value: Any?, for token: Int) {
        lock.lock()
        defer { lock.unlock() }
        values[token] = value
    }
}

private let onceTable = OnceTable()
