/// What the scheduler asks of a lock implementation. The scheduler keeps the CPU and the task
/// states; the lock table keeps who holds which lock, who waits for it, and every task's
/// effective priority.
///
/// The scheduler calls it from one thread, one call at a time, and always with arguments that
/// make sense: a task asks for a lock it does not hold, releases only a lock it holds, and never
/// asks for anything while it waits.
public protocol LockTable: AnyObject {
    /// Called once per task, before the run starts.
    func addTask(_ task: TaskID, basePriority: Int)

    /// `task` asks for `lock`. Returns true if `task` holds it now (it was free); false if
    /// another task holds it: `task` then waits (the scheduler blocks it) until a `release`
    /// hands the lock to it.
    func acquire(_ lock: LockID, by task: TaskID) -> Bool

    /// `task` releases `lock`, which it holds. Returns the waiting task that holds the lock now
    /// (the scheduler wakes it, its `acquire` done), or nil if no task was waiting for it.
    func release(_ lock: LockID, by task: TaskID) -> TaskID?

    /// The priority the scheduler runs `task` at now (its effective priority). The scheduler
    /// asks for every task before every decision.
    func priority(of task: TaskID) -> Int
}

/// Locks without priority inheritance: the first waiter gets the lock, and every task runs at
/// its base priority. What the Mars Pathfinder flew with (see the README).
public final class PlainLocks: LockTable {
    private var base: [TaskID: Int] = [:]
    private var owner: [LockID: TaskID] = [:]
    private var waiters: [LockID: [TaskID]] = [:]

    public init() {}

    public func addTask(_ task: TaskID, basePriority: Int) {
        base[task] = basePriority
    }

    public func acquire(_ lock: LockID, by task: TaskID) -> Bool {
        if owner[lock] == nil {
            owner[lock] = task
            return true
        }
        waiters[lock, default: []].append(task)
        return false
    }

    public func release(_ lock: LockID, by task: TaskID) -> TaskID? {
        guard var queue = waiters[lock], !queue.isEmpty else {
            owner[lock] = nil
            return nil
        }
        let next = queue.removeFirst()
        waiters[lock] = queue
        owner[lock] = next
        return next
    }

    public func priority(of task: TaskID) -> Int {
        base[task] ?? 0
    }
}
