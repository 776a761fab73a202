import Foundation
import Testing

/// Runs a body on dedicated `Thread`s that are released together from a start barrier.
///
/// Dedicated threads, not `concurrentPerform` or a global queue: on two cores those often run
/// iterations one after another, and a blocking wait there can starve unrelated work.
public enum ThreadGang {
    /// Starts `count` threads, releases them together, and runs `body(index)` on each
    /// (`index` in `0..<count`). Waits at most `seconds` for all of them to return; on a miss
    /// records "deadlock suspected in <place>" and returns false. Threads still stuck in the
    /// code under test are left behind: they cannot be stopped, but the check goes on.
    @discardableResult
    public static func run(
        _ count: Int, seconds: Double = Deadline.defaultSeconds, in place: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: @escaping @Sendable (_ index: Int) -> Void
    ) -> Bool {
        let start = StartBarrier(parties: count)
        let done = DispatchGroup()
        let finished = Locked(0)
        for index in 0..<count {
            done.enter()
            let thread = Thread {
                start.arrive(seconds: seconds)
                body(index)
                finished.withLock { $0 += 1 }
                done.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        if done.wait(timeout: .now() + seconds) == .success { return true }
        DeadlockReport.record(
            in: place, waitingFor: "\(count - finished.current) of \(count) threads returning", seconds: seconds,
            sourceLocation: sourceLocation)
        return false
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
