/// Locks with priority inheritance for the simulated one-CPU machine (see README.md).
///
/// A task that holds a lock runs at the highest priority of the tasks waiting for it, through a
/// chain of owners (H waits for B, held by M, which waits for A, held by L: L runs at H's
/// priority), and drops back when it releases: to the highest priority still waiting for a lock it
/// holds, else to its base priority. A released lock goes to its most urgent waiter.
///
/// This one keeps every task's effective priority up to date (incrementally): after each change
/// it recomputes the tasks whose priority may have changed, walking down the chain of owners.
public final class InheritanceLocks: LockTable {
    private var base: [TaskID: Int] = [:]
    private var effective: [TaskID: Int] = [:]
    private var owner: [LockID: TaskID] = [:]
    /// Waiters of each lock, in the order they began to wait.
    private var waiters: [LockID: [TaskID]] = [:]
    private var blockedOn: [TaskID: LockID] = [:]
    private var held: [TaskID: Set<LockID>] = [:]

    public init() {}

    public func addTask(_ task: TaskID, basePriority: Int) {
        base[task] = basePriority
        effective[task] = basePriority
    }

    public func acquire(_ lock: LockID, by task: TaskID) -> Bool {
        guard let holder = owner[lock] else {
            owner[lock] = task
            held[task, default: []].insert(lock)
            return true
        }
        waiters[lock, default: []].append(task)
        blockedOn[task] = lock
        update(from: holder)
        return false
    }

    public func release(_ lock: LockID, by task: TaskID) -> TaskID? {
        held[task]?.remove(lock)
        let queue = waiters[lock] ?? []
        guard let next = queue.enumerated().max(by: { a, b in
            let pa = priority(of: a.element), pb = priority(of: b.element)
            return pa != pb ? pa < pb : a.offset > b.offset  // on a tie, the one waiting longest
        })?.element else {
            owner[lock] = nil
            update(from: task)
            return nil
        }
        waiters[lock] = queue.filter { $0 != next }
        blockedOn[next] = nil
        owner[lock] = next
        held[next, default: []].insert(lock)
        update(from: task)
        update(from: next)
        return next
    }

    public func priority(of task: TaskID) -> Int {
        effective[task] ?? 0
    }

    /// What `task`'s priority should be: its base, or the highest of the tasks waiting for a lock
    /// it holds.
    private func inherited(_ task: TaskID) -> Int {
        var result = base[task] ?? 0
        for lock in held[task] ?? [] {
            for waiter in waiters[lock] ?? [] {
                result = max(result, priority(of: waiter))
            }
        }
        return result
    }

    /// Recomputes `task`'s priority and, while it changes, the priority of the owner of the lock
    /// it waits for, and so on down the chain.
    private func update(from task: TaskID) {
        var current = task
        while true {
            let new = inherited(current)
            if new == effective[current] { return }
            effective[current] = new
            guard let lock = blockedOn[current], let next = owner[lock] else { return }
            current = next
        }
    }
}
