import Foundation
import PriorityInversion

/// The suite's model of priority inheritance, computed from what the scheduler knew at a moment
/// (who holds which lock, who waits for which): a task's effective priority is the highest of its
/// base priority and the effective priorities of the tasks waiting for a lock it holds.
enum Inheritance {
    static func priorities(of scenario: Scenario, owners: [LockID: TaskID], waitingFor: [TaskID: LockID]) -> [TaskID: Int] {
        var memo: [TaskID: Int] = [:]
        func effective(_ task: TaskID, depth: Int) -> Int {
            if let known = memo[task] { return known }
            var result = scenario.basePriority(of: task)
            if depth < 64 {  // a chain longer than the tasks is a cycle: a deadlock, not ours to judge
                for (waiter, lock) in waitingFor where owners[lock] == task {
                    result = max(result, effective(waiter, depth: depth + 1))
                }
            }
            memo[task] = result
            return result
        }
        return Dictionary(uniqueKeysWithValues: scenario.tasks.map { ($0.id, effective($0.id, depth: 0)) })
    }

    /// Why `task` should run at the priority the model gives it, in words.
    static func reason(for task: TaskID, in scenario: Scenario, owners: [LockID: TaskID], waitingFor: [TaskID: LockID]) -> String {
        let expected = priorities(of: scenario, owners: owners, waitingFor: waitingFor)
        let base = scenario.basePriority(of: task)
        let held = owners.filter { $0.value == task }.map(\.key).sorted()
        let waitedFor = held.filter { lock in waitingFor.values.contains(lock) }
        if waitedFor.isEmpty {
            let holding = held.isEmpty ? "holds no lock" : "holds \(list(held.map(\.name))), which nobody waits for"
            return "\(task) \(holding): it runs at its base priority \(base)"
        }
        let waiters = waitedFor.flatMap { lock in
            waitingFor.filter { $0.value == lock }.map(\.key).sorted().map { waiter in
                "\(waiter) (priority \(expected[waiter] ?? 0)\(expected[waiter] != scenario.basePriority(of: waiter) ? ", itself boosted" : "")) waits for \(lock)"
            }
        }
        return "\(task) holds \(list(held.map(\.name))); \(list(waiters)): it runs at \(expected[task] ?? base)"
    }

    static func list(_ items: [String]) -> String {
        switch items.count {
        case 0: ""
        case 1: items[0]
        default: items.dropLast().joined(separator: ", ") + " and " + items.last!
        }
    }
}

/// The suite's own lock table with priority inheritance: what "with priority inheritance" shows
/// next to a failing run. Its priorities come straight from the model; a released lock goes to
/// its most urgent waiter, on a tie to the one waiting longest.
final class ModelLocks: LockTable {
    let scenario: Scenario
    private var owners: [LockID: TaskID] = [:]
    private var waitingFor: [TaskID: LockID] = [:]
    private var order: [TaskID] = []
    /// The model's priorities for the current state (the scheduler asks for every task before
    /// every decision; the state changes only in acquire and release).
    private var cached: [TaskID: Int]?

    init(_ scenario: Scenario) { self.scenario = scenario }

    func addTask(_ task: TaskID, basePriority: Int) {}

    func acquire(_ lock: LockID, by task: TaskID) -> Bool {
        cached = nil
        if owners[lock] == nil {
            owners[lock] = task
            return true
        }
        waitingFor[task] = lock
        order.append(task)
        return false
    }

    func release(_ lock: LockID, by task: TaskID) -> TaskID? {
        let current = Inheritance.priorities(of: scenario, owners: owners, waitingFor: waitingFor)
        cached = nil
        let waiters = order.filter { waitingFor[$0] == lock }
        guard let next = waiters.enumerated().max(by: { a, b in
            let pa = current[a.element] ?? 0, pb = current[b.element] ?? 0
            return pa != pb ? pa < pb : a.offset > b.offset
        })?.element else {
            owners[lock] = nil
            return nil
        }
        waitingFor[next] = nil
        order.removeAll { $0 == next }
        owners[lock] = next
        return next
    }

    func priority(of task: TaskID) -> Int {
        if cached == nil { cached = Inheritance.priorities(of: scenario, owners: owners, waitingFor: waitingFor) }
        return cached?[task] ?? 0
    }
}

/// Judges a run of the learner's lock table against the model.
struct Verdict {
    /// What went wrong, first things first; empty when the run is right.
    let problems: [String]

    /// `model` (the run with the suite's own locks) is needed only to bound `urgent`'s latency.
    /// `expectedFailure`: how the run must end when the scenario deadlocks (the model's ending).
    init(_ trace: Trace, urgent: TaskID?, model: Trace?, expectedFailure: String? = nil) {
        var problems: [String] = []
        let scenario = trace.scenario
        var failureTick = Int.max
        if let failure = trace.failure {
            failureTick = Self.tick(in: failure) ?? Int.max
        }
        // The first moment the reported priorities differ from the model's.
        var previous: Snapshot?
        for snapshot in trace.snapshots where snapshot.tick <= failureTick {
            // Most decisions see the state of the one before: judge each state once.
            defer { previous = snapshot }
            if let previous, previous.owners == snapshot.owners, previous.waitingFor == snapshot.waitingFor,
               previous.priorities == snapshot.priorities { continue }
            let expected = Inheritance.priorities(of: scenario, owners: snapshot.owners, waitingFor: snapshot.waitingFor)
            let wrong = scenario.tasks.map(\.id).filter { snapshot.priorities[$0] != expected[$0] }
            guard let first = wrong.first else { continue }
            let more = wrong.dropFirst().map { "\($0) at \(snapshot.priorities[$0] ?? 0) instead of \(expected[$0] ?? 0)" }
            problems.append(
                "At tick \(snapshot.tick), priority(of: \(first)) was \(snapshot.priorities[first] ?? 0), but \(Inheritance.reason(for: first, in: scenario, owners: snapshot.owners, waitingFor: snapshot.waitingFor))."
                + (more.isEmpty ? "" : " Also wrong then: \(Inheritance.list(more))."))
            break
        }
        // Handoffs: a released lock goes to its most urgent waiter.
        for handoff in trace.handoffs where handoff.tick <= failureTick {
            let expected = Inheritance.priorities(of: scenario, owners: handoff.before.owners, waitingFor: handoff.before.waitingFor)
            let waiters = handoff.before.waitingFor.filter { $0.value == handoff.lock }.map(\.key)
            let best = waiters.map { expected[$0] ?? 0 }.max() ?? 0
            if (expected[handoff.to] ?? 0) < best, let better = waiters.sorted().first(where: { expected[$0] == best }) {
                problems.append(
                    "At tick \(handoff.tick), release(\(handoff.lock), by: \(handoff.from)) handed \(handoff.lock) to \(handoff.to) (priority \(expected[handoff.to] ?? 0)) while \(better) waited for it at priority \(best)\(best != scenario.basePriority(of: better) ? " (its base is \(scenario.basePriority(of: better)), but a task waits for a lock it holds)" : ""). A released lock goes to its most urgent waiter, by effective priority.")
                break
            }
        }
        if let failure = trace.failure, failure != expectedFailure { problems.append(failure) }
        if let expectedFailure, trace.failure == nil {
            problems.append("The run ended with every task finished, but this scenario deadlocks: \(expectedFailure)")
        }
        if let urgent, let done = model?.finished[urgent] {
            let actual = trace.finished[urgent]
            if actual == nil || actual! > done {
                problems.append(
                    "\(urgent) (priority \(scenario.basePriority(of: urgent))) finished \(actual.map { "at tick \($0)" } ?? "never"); with priority inheritance it finishes at tick \(done).")
            }
        }
        self.problems = problems
    }

    /// The tick a scheduler failure names ("… at tick 7 …").
    static func tick(in text: String) -> Int? {
        guard let range = text.range(of: "at tick ") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// What went wrong, as one paragraph: the message the grader shows.
    func summary(_ trace: Trace) -> String {
        "\(trace.scenario.name): \(problems.joined(separator: " ")) Your schedule and the one inheritance gives are printed below it (swift test --filter PriorityInversionTests)."
    }

    /// Your timeline and the model's, one above the other.
    func timelines(_ trace: Trace, model: Trace) -> String {
        let columns = max(trace.cells.count, model.cells.count)
        return """
            \(trace.scenario.name), your locks:
            \(trace.timeline(ticks: columns))
            With priority inheritance:
            \(model.timeline(ticks: columns))
            (\(Trace.legend))
            """
    }
}
