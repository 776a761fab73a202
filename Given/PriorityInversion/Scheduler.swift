/// What a task is doing during one tick.
public enum TaskState: Sendable, Equatable {
    case notArrived
    /// Ready, and waiting for the CPU.
    case ready
    /// On the CPU this tick.
    case running
    /// Blocked until a release hands it this lock.
    case waiting(LockID)
    /// Blocked on something that is not a lock (`Step.sleep`).
    case sleeping
    case done
}

/// One task during one tick: its state, and the priority the lock table reported for it when
/// the scheduler chose who runs.
public struct Cell: Sendable, Equatable {
    public let state: TaskState
    public let priority: Int
}

/// What the scheduler knew at one moment: who holds which lock, who waits for which, and the
/// priority the lock table reported for every task.
public struct Snapshot: Sendable {
    public let tick: Int
    public let owners: [LockID: TaskID]
    public let waitingFor: [TaskID: LockID]
    public let priorities: [TaskID: Int]
}

/// A release that handed a lock to one of its waiters.
public struct Handoff: Sendable {
    public let tick: Int
    public let lock: LockID
    public let from: TaskID
    public let to: TaskID
    /// The state just before the release (the waiters of `lock` among them).
    public let before: Snapshot
}

/// The record of one run: every tick, every decision, every handoff, and how it ended.
public struct Trace: Sendable {
    public let scenario: Scenario
    /// `cells[tick][i]`: task `scenario.tasks[i]` during that tick.
    public let cells: [[Cell]]
    /// The state before every decision of the scheduler, in order.
    public let snapshots: [Snapshot]
    public let handoffs: [Handoff]
    /// What happened, in words: "tick 2: Bus asks for A, held by Meteo: waits".
    public let events: [String]
    /// For each task that finished, the tick by which it had finished (its last tick + 1).
    public let finished: [TaskID: Int]
    /// Why the run stopped early: a lock table that broke its contract, a run with no task able
    /// to go on, or a run past its tick budget. Nil when every task finished.
    public let failure: String?
}

/// A discrete-time scheduler of one CPU.
///
/// - Time goes in ticks. In each tick one ready task runs: the one with the highest priority that
///   the lock table reports. On a tie, the task that ran the tick before keeps the CPU, otherwise
///   the one that has been ready longest runs.
/// - A task runs its script: `compute` uses the CPU one tick at a time (a task of higher priority
///   takes the CPU at the next tick), `lock` and `unlock` take no time, `sleep` blocks it.
/// - `lock` calls the lock table's `acquire`; false blocks the task until a `release` names it.
///   `unlock` calls `release` and wakes the task it names. The scheduler checks that the lock
///   table keeps its contract (one owner per lock, nobody left waiting for a free lock) and stops
///   the run with a `failure` the moment it does not.
/// - A run stops when every task has finished, when no task can run any more, or after
///   `Scenario.tickBound` ticks.
public enum Scheduler {
    public static func run(_ scenario: Scenario, with locks: LockTable) -> Trace {
        var machine = Machine(scenario: scenario, locks: locks)
        machine.run()
        return Trace(
            scenario: scenario, cells: machine.cells, snapshots: machine.snapshots, handoffs: machine.handoffs,
            events: machine.events, finished: machine.finished, failure: machine.failure)
    }
}

private struct Machine {
    let scenario: Scenario
    let locks: LockTable
    let ids: [TaskID]
    var pc: [Int]
    var left: [Int]
    var state: [TaskState]
    var readySince: [Int]
    var sleepUntil: [Int]
    var sequence = 0
    var owners: [LockID: TaskID] = [:]
    var queues: [LockID: [Int]] = [:]
    var lastRunner: Int?

    var cells: [[Cell]] = []
    var snapshots: [Snapshot] = []
    var handoffs: [Handoff] = []
    var events: [String] = []
    var finished: [TaskID: Int] = [:]
    var failure: String?

    init(scenario: Scenario, locks: LockTable) {
        self.scenario = scenario
        self.locks = locks
        ids = scenario.tasks.map(\.id)
        let count = scenario.tasks.count
        pc = Array(repeating: 0, count: count)
        left = Array(repeating: 0, count: count)
        state = Array(repeating: .notArrived, count: count)
        readySince = Array(repeating: 0, count: count)
        sleepUntil = Array(repeating: 0, count: count)
    }

    var waitingFor: [TaskID: LockID] {
        var result: [TaskID: LockID] = [:]
        for (index, state) in state.enumerated() {
            if case .waiting(let lock) = state { result[ids[index]] = lock }
        }
        return result
    }

    func priorities() -> [TaskID: Int] {
        Dictionary(uniqueKeysWithValues: ids.map { ($0, locks.priority(of: $0)) })
    }

    mutating func makeReady(_ index: Int) {
        state[index] = .ready
        sequence += 1
        readySince[index] = sequence
    }

    mutating func run() {
        for task in scenario.tasks { locks.addTask(task.id, basePriority: task.basePriority) }
        let bound = scenario.tickBound
        for tick in 0..<bound {
            for (index, task) in scenario.tasks.enumerated() {
                if state[index] == .notArrived && task.arrival == tick {
                    makeReady(index)
                    events.append("tick \(tick): \(task.id) arrives")
                }
                if state[index] == .sleeping && sleepUntil[index] == tick {
                    pc[index] += 1
                    makeReady(index)
                    events.append("tick \(tick): \(task.id) wakes up")
                }
            }
            var runner: Int?
            var runnerPriority = 0
            var reported: [TaskID: Int] = [:]
            while runner == nil && failure == nil {
                reported = priorities()
                snapshots.append(Snapshot(tick: tick, owners: owners, waitingFor: waitingFor, priorities: reported))
                let ready = state.indices.filter { state[$0] == .ready }
                guard let pick = ready.max(by: { a, b in
                    let pa = reported[ids[a]] ?? 0, pb = reported[ids[b]] ?? 0
                    if pa != pb { return pa < pb }
                    if (lastRunner == a) != (lastRunner == b) { return lastRunner == b }
                    return readySince[a] > readySince[b]
                }) else { break }
                // Steps that take no time first; if any ran (a lock taken, a release, a wait), the
                // priorities may have changed: choose again.
                let step = pc[pick]
                advance(pick, at: tick)
                guard pc[pick] == step, state[pick] == .ready else { continue }
                if pc[pick] < scenario.tasks[pick].steps.count,
                   case .compute(let ticks) = scenario.tasks[pick].steps[pc[pick]] {
                    runner = pick
                    runnerPriority = reported[ids[pick]] ?? 0
                    if left[pick] == 0 { left[pick] = ticks }
                }
            }
            if failure != nil { break }
            var row: [Cell] = state.indices.map { Cell(state: state[$0], priority: reported[ids[$0]] ?? 0) }
            if let runner {
                row[runner] = Cell(state: .running, priority: runnerPriority)
                lastRunner = runner
                left[runner] -= 1
                if left[runner] == 0 {
                    pc[runner] += 1
                    advance(runner, at: tick + 1)  // its next lock, unlock or sleep happens at once
                }
            } else {
                lastRunner = nil
            }
            cells.append(row)
            if failure != nil { break }
            if state.allSatisfy({ $0 == .done }) { return }
            if runner == nil && !state.contains(where: { $0 == .sleeping || $0 == .notArrived }) {
                let stuck = state.indices.compactMap { index -> String? in
                    guard case .waiting(let lock) = state[index] else { return nil }
                    return "\(ids[index]) waits for \(lock)" + (owners[lock].map { " (held by \($0))" } ?? " (held by nobody)")
                }
                failure = "At tick \(tick) no task could run any more: \(stuck.joined(separator: ", ")). A release that hands a lock over must name the waiter that gets it."
                return
            }
        }
        if failure == nil && !state.allSatisfy({ $0 == .done }) {
            failure = "The run did not end within \(bound) ticks, although the scenario needs at most that many."
        }
    }

    /// Runs the task's steps that take no time, from its current step, until it reaches a
    /// `compute` (it is then ready to use the CPU), blocks, or finishes.
    mutating func advance(_ index: Int, at tick: Int) {
        let id = ids[index]
        let steps = scenario.tasks[index].steps
        while failure == nil && state[index] != .done {
            guard pc[index] < steps.count else {
                state[index] = .done
                finished[id] = tick
                events.append("tick \(tick): \(id) finishes")
                return
            }
            switch steps[pc[index]] {
            case .compute(let ticks):
                if ticks > 0 { return }
                pc[index] += 1
            case .sleep(let ticks):
                state[index] = .sleeping
                sleepUntil[index] = tick + max(ticks, 1)
                events.append("tick \(tick): \(id) sleeps for \(max(ticks, 1)) ticks")
                return
            case .lock(let lock):
                let holder = owners[lock]
                let got = locks.acquire(lock, by: id)
                if got {
                    if let holder {
                        failure = "acquire(\(lock), by: \(id)) returned true at tick \(tick) while \(holder) held \(lock): a lock has one owner at a time. When another task holds the lock, acquire records the caller as a waiter and returns false."
                        return
                    }
                    owners[lock] = id
                    pc[index] += 1
                    events.append("tick \(tick): \(id) takes \(lock)")
                } else {
                    guard let holder else {
                        failure = "acquire(\(lock), by: \(id)) returned false at tick \(tick) although nobody held \(lock): \(id) would wait for ever. A free lock is taken at once: record the owner and return true."
                        return
                    }
                    state[index] = .waiting(lock)
                    queues[lock, default: []].append(index)
                    events.append("tick \(tick): \(id) asks for \(lock), held by \(holder): waits")
                    return
                }
            case .unlock(let lock):
                let waiters = queues[lock] ?? []
                let before = Snapshot(tick: tick, owners: owners, waitingFor: waitingFor, priorities: priorities())
                let next = locks.release(lock, by: id)
                pc[index] += 1
                if let next {
                    guard let nextIndex = ids.firstIndex(of: next), waiters.contains(nextIndex) else {
                        let who = waiters.isEmpty ? "nobody was waiting for it" : "only \(waiters.map { ids[$0].name }.joined(separator: ", ")) waited for it"
                        failure = "release(\(lock), by: \(id)) returned \(next) at tick \(tick), but \(who). release returns one of the lock's waiters, or nil when there is none."
                        return
                    }
                    queues[lock] = waiters.filter { $0 != nextIndex }
                    owners[lock] = next
                    pc[nextIndex] += 1
                    makeReady(nextIndex)
                    handoffs.append(Handoff(tick: tick, lock: lock, from: id, to: next, before: before))
                    events.append("tick \(tick): \(id) releases \(lock): \(next) gets it")
                    if pc[nextIndex] >= scenario.tasks[nextIndex].steps.count {
                        state[nextIndex] = .done
                        finished[next] = tick
                    }
                } else {
                    if !waiters.isEmpty {
                        failure = "release(\(lock), by: \(id)) returned nil at tick \(tick) while \(waiters.map { ids[$0].name }.joined(separator: " and ")) waited for \(lock): they would wait for ever. Hand the lock to a waiter and return it."
                        return
                    }
                    owners[lock] = nil
                    events.append("tick \(tick): \(id) releases \(lock)")
                }
            }
        }
    }
}
