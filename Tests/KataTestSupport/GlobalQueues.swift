import Dispatch

/// What a deadlock message adds when the global queues could not start work at that moment.
///
/// libdispatch starts a block sent to a global queue at once while one of the pool's worker
/// threads is free; when every worker is busy or blocked, it adds threads slowly (on Linux about
/// one a second: swift-corelibs-libdispatch, `src/event/workqueue.c`, a monitor that wakes once
/// every `NSEC_PER_SEC` and adds one thread to a pool with no runnable worker). So a probe that
/// does not start within a second is an observation: every worker was taken.
public enum GlobalQueues {
    /// How long the probe waits for its block to start.
    public static let probeSeconds = 1.0

    /// True if a block sent to `DispatchQueue.global()` starts within `probeSeconds`. Blocks the
    /// calling thread that long at most: only for a check that has already failed.
    public static func startWork() -> Bool {
        let started = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { started.signal() }
        return started.wait(timeout: .now() + probeSeconds) == .success
    }

    /// The sentence a deadlock message adds when `startWork()` was false.
    public static let starvedSentence = "At that moment a block sent to DispatchQueue.global() did not start within 1 s: every worker thread of the global queues was busy or blocked. A block that waits on a global queue (a semaphore's or a group's wait(), a lock, sync) keeps its thread for as long as it waits; with enough of them waiting, the work that would end their waits gets no thread."
}
