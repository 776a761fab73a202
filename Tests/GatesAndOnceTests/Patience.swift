import Dispatch
import Foundation
import KataTestSupport
import Testing

/// Waits that tell "stuck" from "slow". "Deadlock suspected" must mean that nothing progressed:
/// on a loaded machine (load average 30 on 2 cores was seen) a correct session can take seconds
/// to do what it does in microseconds when idle. So a wait here gives up only when
/// - what it watches (`progress`: works called, threads returned) stood still for `stall` seconds
///   of the process's own time (see `Heartbeat`), or
/// - the `outer` bound passed, whatever moved (then it says that it saw progress).
/// For isolated bodies only: it blocks its thread.
enum Patience {
    /// How long nothing may move, in heartbeat time, before a wait suspects a deadlock: far above
    /// what a correct implementation needs, short enough that a stuck one fails the suite quickly.
    static let stall = 1.5
    /// The bound of every wait, progress or not; below the isolated check's watchdog (`watchdog`).
    static let outer = 12.0
    /// The watchdog of the checks that use these waits.
    static let watchdog = 20.0
    /// How long an `Interrupter` round may see nothing move (no call, no interruption) before it
    /// suspects a deadlock: its default, 1.5 s of wall time, was seen to pass on the reference
    /// with the machine busy (load 20, a busy process beside the suite: 1 run in 10).
    static let interruptedQuiet = 5.0

    /// Waits until `condition` holds. Gives up at once with `hopeless`'s reason when the check can
    /// see that the event will never come; records "Deadlock suspected in <place>" when nothing
    /// moved for `stall`, and a plain "too slow" report at `outer`.
    @discardableResult
    static func waitUntil(
        stall: Double = stall, outer: Double = outer,
        in place: String, waitingFor what: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        unless hopeless: () -> String? = { nil },
        progress: () -> Int = { 0 }, _ condition: () -> Bool
    ) -> Bool {
        let end = DispatchTime.now() + outer
        var seen = progress()
        var still = Heartbeat.mark()
        while !condition() {
            if let reason = hopeless() {
                if condition() { return true }  // one last look: it may have come just now
                Issue.record(Comment(rawValue: reason), sourceLocation: sourceLocation)
                return false
            }
            let now = progress()
            if now != seen {
                seen = now
                still = Heartbeat.mark()
            } else if Heartbeat.elapsed(since: still) >= stall {
                if condition() { return true }
                var text = "Deadlock suspected in \(place): \(what) did not happen, and nothing progressed for \(seconds(stall)) s."
                if let hint { text += " " + hint }
                Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
                return false
            }
            if DispatchTime.now() >= end {
                if condition() { return true }
                var text = "In \(place), \(what) did not happen within \(seconds(outer)) s, although the work was still moving (not a deadlock: too slow, or a machine far too busy)."
                if let hint { text += " " + hint }
                Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
                return false
            }
            usleep(1_000)
        }
        return true
    }

    /// "1.5", "12": seconds as a message shows them.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }

    /// Runs `learner` on a dedicated thread and waits until it returns (see `waitUntil`; a call
    /// shows no progress of its own until it returns, unless `progress` watches something it does).
    @discardableResult
    static func call(
        _ what: String, in place: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        progress: @escaping () -> Int = { 0 }, _ learner: @escaping @Sendable () -> Void
    ) -> Bool {
        let returned = Locked(false)
        let thread = Thread {
            learner()
            returned.withLock { $0 = true }
        }
        thread.stackSize = 1 << 20
        thread.start()
        return waitUntil(in: place, waitingFor: "\(what) returning", hint: hint, sourceLocation: sourceLocation,
                         progress: progress, { returned.current })
    }

    /// Runs `body(index)` on `count` dedicated threads released together from a start barrier, and waits until all
    /// returned; `progress` (with the threads that returned) is what the wait watches.
    @discardableResult
    static func gang(
        _ count: Int, in place: String, waitingFor what: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        progress: @escaping () -> Int = { 0 }, _ body: @escaping @Sendable (_ index: Int) -> Void
    ) -> Bool {
        let returned = Locked(0)
        let start = StartBarrier(parties: count)
        for index in 0..<count {
            let thread = Thread {
                start.arrive(seconds: outer)
                body(index)
                returned.withLock { $0 += 1 }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        return waitUntil(in: place, waitingFor: what ?? "\(count) threads returning", sourceLocation: sourceLocation,
                         progress: { returned.current + progress() }, { returned.current == count })
    }
}

/// The process's own clock: a thread that sleeps a millisecond at a time and counts. On an idle
/// machine it ticks about every millisecond; on one so loaded that this process barely runs, it
/// ticks rarely, and the waits above stretch with it: time in which the code under test could not
/// run does not count as time in which it failed to progress. (A blocked, deadlocked program does
/// not stop the heartbeat: the heartbeat's thread is not blocked.)
enum Heartbeat {
    private static let ticks = Locked(0)
    private static let started: Bool = {
        let thread = Thread {
            while true {
                usleep(1_000)
                Heartbeat.ticks.withLock { $0 += 1 }
            }
        }
        thread.stackSize = 1 << 18
        thread.start()
        return true
    }()

    /// A point in heartbeat time, and in wall time.
    struct Mark {
        let ticks: Int
        let time: DispatchTime
    }

    static func mark() -> Mark {
        _ = started
        return Mark(ticks: ticks.current, time: .now())
    }

    /// Seconds since `mark`, counted by whichever is slower: the wall clock or the heartbeat
    /// (a tick is at least a millisecond; on an idle machine usleep(1000) takes about 1.06 ms).
    static func elapsed(since mark: Mark) -> Double {
        let wall = Double(DispatchTime.now().uptimeNanoseconds &- mark.time.uptimeNanoseconds) / 1e9
        let beats = Double(ticks.current - mark.ticks) * 0.0012
        return min(wall, beats)
    }
}
