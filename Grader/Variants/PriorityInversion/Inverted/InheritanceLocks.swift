/// The classic mistake of part 1: no priority inheritance at all. It is the given `PlainLocks`:
/// the first waiter gets the lock, and every task runs at its base priority.
public final class InheritanceLocks: LockTable {
    private let plain = PlainLocks()

    public init() {}

    public func addTask(_ task: TaskID, basePriority: Int) {
        plain.addTask(task, basePriority: basePriority)
    }

    public func acquire(_ lock: LockID, by task: TaskID) -> Bool {
        plain.acquire(lock, by: task)
    }

    public func release(_ lock: LockID, by task: TaskID) -> TaskID? {
        plain.release(lock, by: task)
    }

    public func priority(of task: TaskID) -> Int {
        plain.priority(of: task)
    }
}
