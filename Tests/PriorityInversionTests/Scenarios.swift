import PriorityInversion

/// The scenarios the checks replay: each one is where a classic mistake shows.
struct Replay: Sendable {
    let scenario: Scenario
    /// The task whose latency the check bounds (nil: none in particular).
    let urgent: TaskID?

    /// The Mars Pathfinder, 1997. The meteorological task (low priority) takes the information
    /// bus's mutex; the bus management task (high) needs it; the long communications task
    /// (medium) arrives and, without inheritance, keeps the CPU from the low task, so the bus
    /// task waits for the whole of it (on Mars a watchdog then reset the spacecraft).
    static let pathfinder = Replay(scenario: Scenario("Mars Pathfinder", tasks: [
        TaskSpec("Meteo", priority: 1, arrives: 0, [.lock("A"), .compute(3), .unlock("A"), .compute(2)]),
        TaskSpec("Bus", priority: 9, arrives: 1, [.compute(1), .lock("A"), .compute(2), .unlock("A"), .compute(1)]),
        TaskSpec("Comms", priority: 5, arrives: 2, [.compute(12)]),
    ]), urgent: "Bus")

    /// The boost ends with the release: Low, back at its base priority, must let Mid run.
    static let dropBack = Replay(scenario: Scenario("Boost undone on release", tasks: [
        TaskSpec("Low", priority: 2, arrives: 0, [.lock("A"), .compute(3), .unlock("A"), .compute(4)]),
        TaskSpec("High", priority: 8, arrives: 1, [.lock("A"), .compute(1), .unlock("A")]),
        TaskSpec("Mid", priority: 5, arrives: 3, [.compute(3)]),
    ]), urgent: "Mid")

    /// A chain of owners: High waits for B, held by Mid, which waits for A, held by Low. Low must
    /// run at High's priority, or Busy (between them) keeps the CPU and High waits for it.
    static let chain = Replay(scenario: Scenario("Chain of owners", tasks: [
        TaskSpec("Low", priority: 1, arrives: 0, [.lock("A"), .compute(4), .unlock("A"), .compute(1)]),
        TaskSpec("Mid", priority: 3, arrives: 1, [.lock("B"), .compute(1), .lock("A"), .compute(2), .unlock("A"), .unlock("B"), .compute(1)]),
        TaskSpec("High", priority: 9, arrives: 3, [.lock("B"), .compute(1), .unlock("B")]),
        TaskSpec("Busy", priority: 6, arrives: 4, [.compute(8)]),
    ]), urgent: "High")

    /// Low holds A and B; Mid waits for B, then High for A. When Low releases A, it still holds B,
    /// which Mid waits for: it runs at Mid's priority, not at its base, or Busy takes the CPU.
    static let twoLocks = Replay(scenario: Scenario("Two locks held, one released", tasks: [
        TaskSpec("Low", priority: 1, arrives: 0, [.lock("A"), .lock("B"), .compute(3), .unlock("A"), .compute(3), .unlock("B"), .compute(1)]),
        TaskSpec("Mid", priority: 5, arrives: 1, [.lock("B"), .compute(1), .unlock("B")]),
        TaskSpec("High", priority: 9, arrives: 2, [.lock("A"), .compute(1), .unlock("A")]),
        TaskSpec("Busy", priority: 3, arrives: 3, [.compute(6)]),
    ]), urgent: "Mid")

    /// Mid holds B and blocks on something else (A, held by Low) while High waits for B; it comes
    /// back holding A too, at High's priority. Once it has released B, nothing justifies that boost
    /// any more: Mid is back at 3, and releasing A later must not bring the boost back.
    static let comesBack = Replay(scenario: Scenario("Owner blocks elsewhere and comes back", tasks: [
        TaskSpec("Low", priority: 1, arrives: 0, [.lock("A"), .compute(3), .unlock("A"), .compute(1)]),
        TaskSpec("Mid", priority: 3, arrives: 1, [.lock("B"), .lock("A"), .compute(2), .unlock("B"), .compute(2), .unlock("A"), .compute(3)]),
        TaskSpec("High", priority: 8, arrives: 2, [.lock("B"), .compute(1), .unlock("B"), .sleep(2), .compute(1)]),
        TaskSpec("Busy", priority: 5, arrives: 9, [.compute(3)]),
    ]), urgent: "Busy")

    /// Who gets a released lock. Low sleeps (on I/O) while it holds A; Slow (5) begins to wait for
    /// A first, then Mid (3), which holds B; then High (9) waits for B, so Mid runs at 9. When Low
    /// releases A, it goes to Mid, the most urgent waiter by effective priority: not to the first
    /// in line, nor to the highest base priority (Slow would then run while High waits).
    static let handoff = Replay(scenario: Scenario("Handoff to the most urgent waiter", tasks: [
        TaskSpec("Low", priority: 1, arrives: 0, [.lock("A"), .compute(1), .sleep(3), .compute(1), .unlock("A"), .compute(1)]),
        TaskSpec("Slow", priority: 5, arrives: 1, [.lock("A"), .compute(3), .unlock("A")]),
        TaskSpec("Mid", priority: 3, arrives: 1, [.lock("B"), .compute(1), .lock("A"), .compute(1), .unlock("A"), .unlock("B"), .compute(1)]),
        TaskSpec("High", priority: 9, arrives: 3, [.lock("B"), .compute(1), .unlock("B")]),
    ]), urgent: "High")

    /// Two tasks take A and B in opposite orders: Low holds A, High takes B and waits for A (Low
    /// runs at 8), then Low waits for B. A cycle of waiting tasks, a deadlock: nobody can go on,
    /// and the run must end saying so. Busy keeps the CPU meanwhile, and the scheduler asks every
    /// task's priority at every tick: a walk down the chain of owners that does not stop where it
    /// comes back never returns.
    static let deadlock = Replay(scenario: Scenario("Two locks taken in opposite orders", tasks: [
        TaskSpec("Low", priority: 2, arrives: 0, [.lock("A"), .compute(2), .lock("B"), .compute(1), .unlock("B"), .unlock("A")]),
        TaskSpec("High", priority: 8, arrives: 1, [.lock("B"), .compute(1), .lock("A"), .compute(1), .unlock("A"), .unlock("B")]),
        TaskSpec("Busy", priority: 5, arrives: 2, [.compute(4)]),
    ]), urgent: nil)
}

/// Random scenarios, the same ones every run: 3 to 5 tasks of distinct priorities, locks A, B, C
/// taken in alphabetical order (no deadlock), nested or released out of order, sleeps inside and
/// outside critical sections.
enum RandomScenarios {
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {  // SplitMix64
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int {
            range.lowerBound + Int(next() % UInt64(range.count))
        }
        mutating func chance(_ percent: Int) -> Bool { int(1...100) <= percent }
    }

    static func make(count: Int, seed: UInt64 = 11) -> [Scenario] {
        var random = Generator(state: seed)
        return (1...count).map { number in
            let taskCount = random.int(3...5)
            var priorities = Array(1...9)
            var tasks: [TaskSpec] = []
            for index in 0..<taskCount {
                let priority = priorities.remove(at: random.int(0...(priorities.count - 1)))
                tasks.append(TaskSpec(TaskID("T\(index + 1)"), priority: priority, arrives: random.int(0...6), script(&random)))
            }
            return Scenario("Random scenario \(number) of \(count)", tasks: tasks)
        }
    }

    static func script(_ random: inout Generator) -> [Step] {
        var steps: [Step] = []
        if random.chance(50) { steps.append(.compute(random.int(1...2))) }
        let locks: [LockID] = ["A", "B", "C"].filter { _ in random.chance(55) }
        for lock in locks {
            steps.append(.lock(lock))
            steps.append(.compute(random.int(1...3)))
            if random.chance(15) { steps.append(.sleep(random.int(1...2))) }
        }
        // Release in reverse order, or out of order now and then.
        var held = locks
        while !held.isEmpty {
            let index = random.chance(30) ? random.int(0...(held.count - 1)) : held.count - 1
            steps.append(.unlock(held.remove(at: index)))
            if random.chance(60) { steps.append(.compute(random.int(1...2))) }
        }
        if random.chance(20) { steps.append(.sleep(random.int(1...2))) }
        steps.append(.compute(random.int(1...2)))
        return steps
    }
}
