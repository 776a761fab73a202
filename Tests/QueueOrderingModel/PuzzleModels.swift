import QueueOrderingGiven

/// The rules, in the words the messages use.
enum Rule {
    static let programOrder = "because statements on one thread run in the order they are written"
    static func submission(_ first: Int, _ block: Int) -> String {
        "because a block cannot start before it is submitted, and \(first) is printed before the block that prints \(block) is submitted"
    }
    static let syncReturnsAfterItsBlock = "because `sync` returns only after its block has run"
    static let serialFIFO = "because a serial queue runs its blocks one at a time, in the order they were submitted"
}

extension Puzzle {
    /// The suite's happens-before model of the puzzle.
    public var happensBefore: HappensBefore {
        typealias O = HappensBefore.Order
        switch self {
        case .serialSync, .concurrentSync:
            return HappensBefore(labels: [1, 2, 3, 4], orders: [
                O(before: 1, after: 2, rule: Rule.syncReturnsAfterItsBlock + " (the block prints 1)."),
                O(before: 2, after: 3, rule: Rule.submission(2, 3) + " (the caller prints 2, then calls `sync`)."),
                O(before: 3, after: 4, rule: Rule.syncReturnsAfterItsBlock + " (the block prints 3)."),
            ])
        case .serialAsync:
            return HappensBefore(labels: [1, 2, 3, 4], orders: [
                O(before: 1, after: 3, rule: Rule.serialFIFO + ", and the block printing 1 was submitted first."),
                O(before: 2, after: 3, rule: Rule.submission(2, 3) + "."),
                O(before: 2, after: 4, rule: Rule.programOrder + " (the caller prints 2, then 4)."),
            ])
        case .serialSyncInsideAsync:
            return HappensBefore(labels: [1, 2, 3, 4, 5], orders: [
                O(before: 1, after: 2, rule: Rule.submission(1, 2) + "."),
                O(before: 1, after: 5, rule: Rule.programOrder + " (the caller prints 1, then 5)."),
            ], neverPrinted: [
                3: "the block printing 3 is submitted with `sync` onto the serial queue from a block that queue is running: it can start only when that block ends, and that block waits in `sync` for it. This deadlock is so common that libdispatch detects it and stops the process (\"dispatch_sync called on queue already owned by current thread\").",
                4: "4 comes after a `sync` that never returns: the block printing 3 waits for the block that called `sync` to end, and that block waits for it.",
            ])
        case .serialAsyncInsideSync:
            return HappensBefore(labels: [1, 2, 3, 4, 5], orders: [
                O(before: 1, after: 2, rule: Rule.programOrder + " (the caller prints 1, then calls `sync`, whose block prints 2)."),
                O(before: 2, after: 4, rule: Rule.programOrder + " (one block prints 2, then 4)."),
                O(before: 4, after: 3, rule: Rule.serialFIFO + ": the block printing 3 cannot start while the `sync` block that submitted it is still running, and that block prints 4 before it ends."),
                O(before: 4, after: 5, rule: Rule.syncReturnsAfterItsBlock + " (the block prints 4)."),
            ])
        case .concurrentAsync:
            return HappensBefore(labels: [1, 2, 3, 4], orders: [
                O(before: 2, after: 3, rule: Rule.submission(2, 3) + "."),
                O(before: 2, after: 4, rule: Rule.programOrder + " (the caller prints 2, then 4)."),
            ])
        case .concurrentSyncInsideAsync:
            return HappensBefore(labels: [1, 2, 3, 4, 5], orders: [
                O(before: 1, after: 2, rule: Rule.submission(1, 2) + "."),
                O(before: 2, after: 3, rule: Rule.submission(2, 3) + " (the block prints 2, then calls `sync`)."),
                O(before: 3, after: 4, rule: Rule.syncReturnsAfterItsBlock + " (the block prints 3)."),
                O(before: 1, after: 5, rule: Rule.programOrder + " (the caller prints 1, then 5)."),
            ])
        case .concurrentAsyncInsideSync:
            return HappensBefore(labels: [1, 2, 3, 4, 5], orders: [
                O(before: 1, after: 2, rule: Rule.programOrder + " (the caller prints 1, then calls `sync`, whose block prints 2)."),
                O(before: 2, after: 3, rule: Rule.submission(2, 3) + "."),
                O(before: 2, after: 4, rule: Rule.programOrder + " (one block prints 2, then 4)."),
                O(before: 4, after: 5, rule: Rule.syncReturnsAfterItsBlock + " (the block prints 4)."),
            ])
        case .barrierOnPrivateQueue:
            return HappensBefore(labels: [1, 2, 3], orders: [
                O(before: 1, after: 2, rule: "because a barrier block on a private concurrent queue starts only after every block submitted before it has finished."),
            ])
        case .barrierOnGlobalQueue:
            return HappensBefore(labels: [1, 2, 3], orders: [])
        case .groupNotify:
            return HappensBefore(labels: [1, 2, 3, 4], orders: [
                O(before: 1, after: 3, rule: "because `notify` runs its block once every block submitted with the group before it has finished."),
                O(before: 2, after: 3, rule: "because `notify` runs its block once every block submitted with the group before it has finished."),
            ])
        case .asyncAfterVersusAsync:
            return HappensBefore(labels: [1, 2, 3], orders: [
                O(before: 2, after: 3, rule: Rule.submission(2, 3) + "."),
            ])
        case .semaphoreHandover:
            return HappensBefore(labels: [1, 2, 3, 4], orders: [
                O(before: 1, after: 2, rule: Rule.programOrder + " (one block prints 1, waits, then prints 2)."),
                O(before: 3, after: 4, rule: Rule.programOrder + " (one block prints 3, signals, then prints 4)."),
                O(before: 3, after: 2, rule: "because `wait()` on a semaphore that starts at 0 returns only after a `signal()`, and the only signal comes after 3 is printed."),
            ])
        case .semaphoreOnOneSerialQueue:
            return HappensBefore(labels: [1, 2, 3, 4], orders: [
                O(before: 1, after: 2, rule: Rule.programOrder + "."),
                O(before: 3, after: 2, rule: "because `wait()` returns only after the `signal()` that follows 3."),
            ], neverPrinted: [
                3: "the block printing 3 is on the same serial queue as the block that waits for its signal: it cannot start until that block ends, and that block waits for it forever. libdispatch cannot see this deadlock: the process just hangs.",
                2: "2 comes after `ready.wait()`, and the only `signal()` is in a block that can never start (a serial queue runs one block at a time).",
            ])
        }
    }

    /// The lesson a learner who missed an output of this puzzle needs.
    public var lesson: String {
        switch self {
        case .serialSync, .concurrentSync:
            "`sync` runs its block before it returns, on any kind of queue."
        case .serialAsync:
            "`async` returns at once: the caller's own prints race with the queue's blocks, while the queue keeps its blocks in order."
        case .serialSyncInsideAsync:
            "`async` returns at once, so the caller's 5 races with the block's 2; then the block deadlocks in `sync` onto its own serial queue."
        case .serialAsyncInsideSync:
            "the inner `async` block waits for the running `sync` block to end (serial queue), but not for the caller after `sync` returns."
        case .concurrentAsync:
            "a concurrent queue starts blocks as soon as it can, in any order relative to each other and to the caller; only the caller's own order (2, then 4) and submission (3 after 2) hold."
        case .concurrentSyncInsideAsync:
            "`sync` onto a concurrent queue from one of its own blocks does not deadlock: the queue runs the inner block beside the outer one. The caller's 5 can come anywhere after 1."
        case .concurrentAsyncInsideSync:
            "the inner `async` block may start at once on a concurrent queue, before or after the rest of the `sync` block and the caller."
        case .barrierOnPrivateQueue:
            "the barrier waits for earlier blocks, but `async(flags: .barrier)` does not make the caller wait: 3 may come anywhere."
        case .barrierOnGlobalQueue:
            "a barrier on a global queue is ignored (the global queues are shared by the whole process): it behaves like a plain `async`."
        case .groupNotify:
            "`notify` is not a wait: the caller goes on at once, and the notified block waits only for the group's blocks."
        case .asyncAfterVersusAsync:
            "a deadline only says \"not before\": the caller may be descheduled past it, so the delayed block can run before a later `async`."
        case .semaphoreHandover:
            "a semaphore orders only the signal before the wait's return; each side goes on independently otherwise."
        case .semaphoreOnOneSerialQueue:
            "a serial queue runs one block at a time: a block that waits for a later block of its own queue waits forever."
        }
    }
}
