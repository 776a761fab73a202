import Dispatch
import KataTripwire

/// The untouched stub, with `Tripwire.call()` first in every public entry point.
///
/// A serial queue whose `sync` is safe to call from code already running on it.
///
/// Your task (see README.md in this folder): give the worker a private serial `DispatchQueue` and
/// a way to tell whether the current code is running on it (`DispatchSpecificKey`), so that
/// `sync` from the worker's own queue runs inline instead of waiting for itself.
///
/// Every member below is a stub that compiles, does nothing useful, and never crashes.
public final class SerialWorker: @unchecked Sendable {
    // TODO: a private serial queue, and a DispatchSpecificKey that marks it.

    public init(label: String) {
        Tripwire.call()
        // TODO: create the queue and mark it with setSpecific(key:value:).
    }

    /// Runs body on the worker's queue and waits; runs it inline when called from the worker's own
    /// queue (including from inside another sync or async block of the same worker).
    public func sync<T>(_ body: () throws -> T) rethrows -> T {
        Tripwire.call()
        return try body()  // TODO: on the queue, unless already on it.
    }

    /// Runs body later, on the worker's queue, after the blocks submitted before it.
    public func async(_ body: @escaping @Sendable () -> Void) {
        Tripwire.call()
        body()  // TODO: this runs body at once, on the caller's thread; submit it to the queue.
    }

    /// True when the caller is running on this worker's queue (not on another worker's, even one
    /// with the same label).
    public var isCurrent: Bool {  // TODO
        Tripwire.call()
        return false
    }
}
