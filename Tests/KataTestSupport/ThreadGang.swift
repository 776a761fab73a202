import Foundation
import Testing

/// Runs a body on dedicated `Thread`s that are released together from a start barrier.
///
/// Dedicated threads, not `concurrentPerform` or a global queue: on two cores those often run
/// iterations one after another, and a blocking wait there can starve unrelated work.
public enum ThreadGang {
    /// Starts `count` threads, releases them together, and runs `body(index)` on each
    /// (`index` in `0..<count`). Waits for all of them to return while something moves: a thread
    /// arriving at the barrier, a thread returning, or the caller's own `progress()` (work done
    /// inside the bodies). After `seconds` without any of these (or `limit` in all), records
    /// "deadlock suspected in <place>" and returns false. Threads still stuck in the code under
    /// test are left behind: they cannot be stopped, but the check goes on.
    @discardableResult
    public static func run(
        _ count: Int, seconds: Double = Deadline.defaultSeconds, limit: Double? = nil, in place: String,
        sourceLocation: SourceLocation = #_sourceLocation, progress: @escaping () -> Int = { 0 },
        _ body: @escaping @Sendable (_ index: Int) -> Void
    ) -> Bool {
        let start = StartBarrier(parties: count)
        let arrived = Locked(0)
        let finished = Locked(0)
        // The barrier waits as long as the gang does: a party late because the machine is busy is
        // not a reason to break the round.
        let patience = ProgressDeadline.defaultLimit(for: seconds)
        for index in 0..<count {
            let thread = Thread {
                arrived.withLock { $0 += 1 }
                start.arrive(seconds: patience)
                body(index)
                finished.withLock { $0 += 1 }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        return Deadline.waitUntil(
            quiet: seconds, limit: limit, in: place, waitingFor: "\(count) of \(count) threads returning",
            sourceLocation: sourceLocation, progress: { arrived.current + finished.current + progress() }
        ) { finished.current == count }
    }

    /// Starts one dedicated thread running `body`; the returned group is left when it returns.
    /// For a blocking call a check wants to watch from outside (a reader parked in `read`).
    public static func spawn(_ body: @escaping @Sendable () -> Void) -> DispatchGroup {
        let done = DispatchGroup()
        done.enter()
        Thread {
            body()
            done.leave()
        }.start()
        return done
    }
}
