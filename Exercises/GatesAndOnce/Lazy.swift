import Foundation

/// A value computed on first use, exactly once, however many threads ask for it at the same time.
///
/// Your task (see README.md in this folder):
/// - `init` keeps the initializer and does not call it.
/// - `value` runs the initializer on the first read and returns that same value to every caller
///   from then on, also to the callers that arrived while it was running (they wait for it).
/// - An initializer that throws stores nothing: its caller gets the error, and a later read tries
///   again.
/// - The initializer reading its own box (re-entry, on the thread that is initializing) stops the
///   process with a precondition failure that says so, instead of waiting for itself forever.
///   An initializer that reads *another* box is fine.
public final class Lazy<Value: Sendable>: @unchecked Sendable {
    private let initializer: @Sendable () throws -> Value
    // TODO: the stored value, who is initializing, and a lock (or condition) that guards them.

    /// Keeps `initializer`; it is not called here.
    public init(_ initializer: @escaping @Sendable () throws -> Value) {
        self.initializer = initializer
    }

    /// The value, computed once by the first caller.
    public var value: Value {
        get throws {
            try initializer()  // TODO: this runs the initializer on every read. Keep its value.
        }
    }
}
