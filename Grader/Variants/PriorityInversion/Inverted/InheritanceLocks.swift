/// The classic mistake of part 1: no priority inheritance at all (the given `PlainLocks`): the
/// first waiter gets the lock, and every task runs at its base priority.
public final class InheritanceLocks: LockTable {
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
