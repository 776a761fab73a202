import KataTripwire

/// The untouched stub, with `Tripwire.call()` first in every public entry point.
///
/// Locks with priority inheritance for the simulated one-CPU machine (part 1; see README.md).
///
/// The given `Scheduler` runs tasks on one CPU, always the ready task with the highest priority
/// this table reports, and calls this table whenever a task locks or unlocks. Your task:
/// - Keep who holds each lock and who waits for it. `acquire` of a free lock returns true; of a
///   held lock, records the waiter and returns false. `release` hands the lock to its most urgent
///   waiter (highest priority; on a tie, any) and returns it, or nil when nobody waits.
/// - `priority(of:)` is the task's effective priority: the highest of its base priority and the
///   priorities of all tasks waiting for a lock it holds. Those waiters' priorities are effective
///   priorities too, so a boost travels down a chain of owners.
/// - It drops back as soon as a release or a handoff changes who waits for what: never keep a boost
///   that no waiter justifies any more, and never drop below one that a waiter still justifies.
///
/// Every member below is a stub that compiles, does nothing useful, and never crashes: replace
/// each body. Run `swift test --filter PriorityInversionTests` to see which check to work on next
/// (a failing check prints your schedule next to the right one), and
/// `swift run grader hint PriorityInversion` for a hint. `PlainLocks` (in Given/) is the same table
/// without inheritance: a place to start.
public final class InheritanceLocks: LockTable {
    // TODO: base priorities, owners, waiters (and whatever else you need to compute priorities).

    public init() {
        Tripwire.call()
    }

    public func addTask(_ task: TaskID, basePriority: Int) {
        Tripwire.call()
        // TODO: remember the task's base priority.
    }

    public func acquire(_ lock: LockID, by task: TaskID) -> Bool {
        Tripwire.call()
        return true  // TODO: this lets every task in, even when another one holds the lock.
    }

    public func release(_ lock: LockID, by task: TaskID) -> TaskID? {
        Tripwire.call()
        return nil  // TODO: hand the lock to its most urgent waiter, if any.
    }

    public func priority(of task: TaskID) -> Int {
        Tripwire.call()
        return 0  // TODO: the task's effective priority.
    }
}
