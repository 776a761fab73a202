import Foundation
import KataTestSupport
import PriorityInversion

/// A learner's lock table, with the call it is in and how many calls have returned, for a check
/// that must tell a call that never returns from a run that is merely slow.
final class WatchedLocks: LockTable, @unchecked Sendable {
    private let table: LockTable
    private let state = Locked((inProgress: String?.none, returned: 0))

    init(_ table: LockTable) { self.table = table }

    var inProgress: String? { state.current.inProgress }
    var returned: Int { state.current.returned }

    private func watch<Result>(_ call: String, _ body: () -> Result) -> Result {
        state.withLock { $0.inProgress = call }
        let result = body()
        state.withLock { $0 = (nil, $0.returned + 1) }
        return result
    }

    func addTask(_ task: TaskID, basePriority: Int) {
        watch("addTask(\(task), basePriority: \(basePriority))") { table.addTask(task, basePriority: basePriority) }
    }

    func acquire(_ lock: LockID, by task: TaskID) -> Bool {
        watch("acquire(\(lock), by: \(task))") { table.acquire(lock, by: task) }
    }

    func release(_ lock: LockID, by task: TaskID) -> TaskID? {
        watch("release(\(lock), by: \(task))") { table.release(lock, by: task) }
    }

    func priority(of task: TaskID) -> Int {
        watch("priority(of: \(task))") { table.priority(of: task) }
    }
}
