/// The name of a task of the simulated one-CPU machine ("Bus", "Meteo", "H").
public struct TaskID: Hashable, Comparable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let name: String

    public init(_ name: String) { self.name = name }
    public init(stringLiteral name: String) { self.name = name }

    public var description: String { name }
    public static func < (a: TaskID, b: TaskID) -> Bool { a.name < b.name }
}

/// The name of a lock of the simulated machine: one capital letter ("A", "B"), so that the
/// timeline can show in one column which lock a task waits for.
public struct LockID: Hashable, Comparable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let name: String

    public init(_ name: String) { self.name = name }
    public init(stringLiteral name: String) { self.name = name }

    public var description: String { name }
    public static func < (a: LockID, b: LockID) -> Bool { a.name < b.name }
}

/// One step of a task's script.
public enum Step: Sendable, Equatable, CustomStringConvertible {
    /// Uses the CPU for this many ticks (it can be preempted between ticks).
    case compute(Int)
    /// Takes the lock, or waits until a release hands it over. Takes no time.
    case lock(LockID)
    /// Releases the lock, which the task holds. Takes no time.
    case unlock(LockID)
    /// Blocks for this many ticks on something that is not a lock (I/O, a timer): no owner,
    /// nobody to boost.
    case sleep(Int)

    public var description: String {
        switch self {
        case .compute(let ticks): "compute(\(ticks))"
        case .lock(let lock): "lock(\(lock))"
        case .unlock(let lock): "unlock(\(lock))"
        case .sleep(let ticks): "sleep(\(ticks))"
        }
    }
}

/// A task: its base priority (higher runs first), the tick at which it arrives, and its script.
public struct TaskSpec: Sendable {
    public let id: TaskID
    public let basePriority: Int
    public let arrival: Int
    public let steps: [Step]

    public init(_ id: TaskID, priority: Int, arrives arrival: Int = 0, _ steps: [Step]) {
        self.id = id
        self.basePriority = priority
        self.arrival = arrival
        self.steps = steps
    }
}

/// A set of tasks to run on the simulated machine.
public struct Scenario: Sendable {
    public let name: String
    public let tasks: [TaskSpec]

    public init(_ name: String, tasks: [TaskSpec]) {
        self.name = name
        self.tasks = tasks
    }

    public func basePriority(of task: TaskID) -> Int {
        tasks.first { $0.id == task }?.basePriority ?? 0
    }

    /// The most ticks a run can need when no task ever waits for a free lock: every tick before
    /// the last arrival, plus every tick of work and of sleep. A run that goes past it is stuck.
    public var tickBound: Int {
        let work = tasks.reduce(0) { total, task in
            total + task.steps.reduce(0) { sum, step in
                switch step {
                case .compute(let ticks), .sleep(let ticks): sum + ticks
                case .lock, .unlock: sum
                }
            }
        }
        return (tasks.map(\.arrival).max() ?? 0) + work + 1
    }
}
