import Dispatch

/// A serial queue whose `sync` is safe to call from code already running on it.
///
/// Reference solution. `DispatchQueue.sync` onto the serial queue the caller is running on waits
/// for the block that is running to end, and that block is the caller: it waits for itself
/// (libdispatch usually stops the process with a trap, SIGILL on x86_64 and SIGTRAP on arm64, saying
/// "dispatch_sync called on queue already owned by current thread" on Apple platforms). So `sync`
/// first asks "am I already on this queue?" and, if so, runs the body inline: the caller already
/// has the queue to itself.
///
/// The question is answered with a queue-specific value: `setSpecific(key:value:)` attaches it to
/// this worker's queue, and `DispatchQueue.getSpecific(key:)` finds it only while the current code
/// runs on that queue. Labels are not identities (two queues may share one), and threads are not
/// queues (a `sync` from another thread usually runs its block on the calling thread; `async`
/// blocks run on whichever pool thread is free).
///
/// The mark is an object of this worker's own, and the queue keeps it alive. A worker may be freed
/// while its queue still runs the bodies queued on it, and a new worker made at once must not look
/// current there. Dispatch tells keys apart by their address alone and retains only the value
/// (`setSpecific` passes the key unretained and the value retained: swift-corelibs-libdispatch
/// `src/swift/Queue.swift`, and the same in Apple's overlay): a key stored in the worker would be
/// freed with it while the old queue still carries its address, and the next key made could get
/// that address. One key that lives for ever, and a value that lives as long as the queue
/// carrying it, cannot be mistaken.
///
/// Limit: `getSpecific` sees the innermost queue. Inside `other.sync { }` called from this worker's
/// queue, `isCurrent` is false, and calling `self.sync` from there would still deadlock.
public final class SerialWorker: @unchecked Sendable {
    /// What a worker's queue carries: compared by identity, never by value.
    private final class Mark: Sendable {}

    /// One key for every worker, never freed; each worker's queue carries its own mark under it.
    private static let key = DispatchSpecificKey<Mark>()

    private let queue: DispatchQueue
    private let mark = Mark()

    public init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.key, value: mark)
    }

    /// Runs body on the worker's queue and waits; runs it inline when called from the worker's own
    /// queue (including from inside another sync or async block of the same worker).
    public func sync<T>(_ body: () throws -> T) rethrows -> T {
        if isCurrent { return try body() }
        return try queue.sync(execute: body)
    }

    /// Runs body later, on the worker's queue, after the blocks submitted before it. The queue
    /// keeps itself alive until its blocks have run, also after the worker is gone.
    public func async(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }

    /// True when the caller is running on this worker's queue (not on another worker's, even one
    /// with the same label, and not on the queue of a worker freed before this one was made).
    public var isCurrent: Bool {
        DispatchQueue.getSpecific(key: Self.key) === mark
    }
}
