import Dispatch

/// A serial queue whose `sync` is safe to call from code already running on it.
///
/// Model-mode wrong implementation "PlainSync" (not a grader variant): `sync` always calls
/// `queue.sync`, so a `sync` from inside the worker's own queue waits for itself. The reference's
/// comments below describe what it should do.
///
/// Reference solution. `DispatchQueue.sync` onto the serial queue the caller is running on waits
/// for the block that is running to end, and that block is the caller: it waits for itself
/// (libdispatch usually stops the process with a trap, SIGILL on x86_64 and SIGTRAP on arm64, saying
/// "dispatch_sync called on queue already owned by current thread" on Apple platforms). So `sync`
/// first asks "am I already on this queue?" and, if so, runs the body inline: the caller already
/// has the queue to itself.
///
/// The question is answered with a `DispatchSpecificKey`: a value attached to this worker's queue
/// that `DispatchQueue.getSpecific(key:)` finds only while the current code runs on that queue.
/// Labels are not identities (two queues may share one), and threads are not queues (a `sync` from
/// another thread usually runs its block on the calling thread; `async` blocks run on whichever
/// pool thread is free).
///
/// Limit: `getSpecific` sees the innermost queue. Inside `other.sync { }` called from this worker's
/// queue, `isCurrent` is false, and calling `self.sync` from there would still deadlock.
public final class SerialWorker: @unchecked Sendable {
    private let queue: DispatchQueue
    /// One key per worker: no other queue ever carries it.
    private let key = DispatchSpecificKey<Bool>()

    public init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: true)
    }

    /// Runs body on the worker's queue and waits; runs it inline when called from the worker's own
    /// queue (including from inside another sync or async block of the same worker).
    public func sync<T>(_ body: () throws -> T) rethrows -> T {
        // WRONG: no "am I already on this queue?" first.
        return try queue.sync(execute: body)
    }

    public func async(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }

    /// True when the caller is running on this worker's queue (not on another worker's, even one
    /// with the same label).
    public var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) == true
    }
}
