import Foundation
import KataTestSupport
import PriorityInversion
import Testing

/// Part 1: the mechanism, on the given one-CPU scheduler. Every check is deterministic (the same
/// scenario gives the same schedule) and takes milliseconds; a failure prints your schedule next
/// to the one priority inheritance gives. Each runs isolated, so that a lock table that crashes or
/// loops for ever fails its check instead of the run.
@Suite("Priority inheritance on one simulated CPU", .exitIsAFailure)
struct InheritanceTests {
    static let crashHint = "A crash inside your lock table: a force unwrap of a task or lock you never recorded, an index out of range, or a recursion that never ends (a chain of owners that loops back)."

    @Test("Mars Pathfinder: the bus task waits only for the meteorological task's critical section, not for the communications task")
    func pathfinder() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            InheritanceTests.replay(.pathfinder)
        }
        IsolatedCheck.explain(ending, in: Self.place(.pathfinder), crashHint: Self.crashHint)
    }

    @Test("After its release, the former owner drops back to its base priority")
    func dropsBackOnRelease() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            InheritanceTests.replay(.dropBack)
        }
        IsolatedCheck.explain(ending, in: Self.place(.dropBack), crashHint: Self.crashHint)
    }

    @Test("Inheritance is transitive along a chain of owners")
    func transitiveChain() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            InheritanceTests.replay(.chain)
        }
        IsolatedCheck.explain(ending, in: Self.place(.chain), crashHint: Self.crashHint)
    }

    @Test("A task releasing one of two locks keeps the priority of the waiters of the other")
    func twoLocksHeld() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            InheritanceTests.replay(.twoLocks)
        }
        IsolatedCheck.explain(ending, in: Self.place(.twoLocks), crashHint: Self.crashHint)
    }

    @Test("An owner that blocks on another lock and comes back keeps no boost that no waiter justifies")
    func ownerComesBack() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            InheritanceTests.replay(.comesBack)
        }
        IsolatedCheck.explain(ending, in: Self.place(.comesBack), crashHint: Self.crashHint)
    }

    @Test("A released lock goes to its most urgent waiter, by effective priority")
    func handoffToMostUrgent() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            InheritanceTests.replay(.handoff)
        }
        IsolatedCheck.explain(ending, in: Self.place(.handoff), crashHint: Self.crashHint)
    }

    @Test("Two tasks taking two locks in opposite orders deadlock: every call of your lock table still returns, and the run ends saying so")
    func deadlockCycle() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            InheritanceTests.replayDeadlock()
        }
        IsolatedCheck.explain(ending, in: Self.place(.deadlock), crashHint: Self.cycleHint)
    }

    static let cycleHint = "Here Low waits for B, held by High, which waits for A, held by Low: a cycle of waiting tasks. A walk down the chain of owners (or a priority computed from the waiters' priorities, recursively) comes back to where it began; stop it there, for instance when a priority no longer changes or at a task already seen."

    static let randomCount = 200

    @Test("200 random scenarios: every priority at every moment, and every handoff, as inheritance says")
    func randomScenarios() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            InheritanceTests.replayRandom()
        }
        IsolatedCheck.explain(ending, in: "the random scenarios", crashHint: Self.crashHint)
    }

    // MARK: The replays (run in the child process of each check)

    static func place(_ replay: Replay) -> String { "the \(replay.scenario.name) scenario" }

    static func replay(_ replay: Replay) -> Never {
        IsolatedCheck.begin(seconds: 3, in: place(replay))
        let model = Scheduler.run(replay.scenario, with: ModelLocks(replay.scenario))
        let trace = Scheduler.run(replay.scenario, with: InheritanceLocks())
        let verdict = Verdict(trace, urgent: replay.urgent, model: model)
        if !verdict.problems.isEmpty {
            Issue.record(Comment(rawValue: verdict.summary(trace)))
            Issue.record(Comment(rawValue: verdict.timelines(trace, model: model)))
        }
        IsolatedCheck.finish()
    }

    /// The deadlock scenario, with the learner's table on a thread of its own: the check watches
    /// its calls return. One call that has not returned for `stallSeconds`, while the calls before
    /// it each took microseconds, loops on the cycle; the run is then reported with that call.
    static func replayDeadlock() -> Never {
        let replay = Replay.deadlock
        IsolatedCheck.begin(seconds: 10, in: place(replay))
        let model = Scheduler.run(replay.scenario, with: ModelLocks(replay.scenario))
        let watched = WatchedLocks(InheritanceLocks())
        let result = Locked<Trace?>(nil)
        let runner = Thread { result.withLock { $0 = Scheduler.run(replay.scenario, with: watched) } }
        runner.stackSize = 1 << 22
        runner.start()
        let stallSeconds = 2.0
        var last = (returned: -1, at: DispatchTime.now())
        while result.current == nil {
            let returned = watched.returned
            if returned != last.returned {
                last = (returned, DispatchTime.now())
            } else if DispatchTime.now().uptimeNanoseconds - last.at.uptimeNanoseconds > UInt64(stallSeconds * 1e9) {
                let call = watched.inProgress ?? "a call"
                Issue.record(Comment(rawValue: "\(replay.scenario.name): \(call) did not return within \(Int(stallSeconds)) s, after \(returned) calls that each returned at once. \(cycleHint)"))
                IsolatedCheck.finish()
            }
            usleep(1_000)
        }
        guard let trace = result.current else { IsolatedCheck.finish() }
        let verdict = Verdict(trace, urgent: nil, model: model, expectedFailure: model.failure)
        if !verdict.problems.isEmpty {
            Issue.record(Comment(rawValue: verdict.summary(trace)))
            Issue.record(Comment(rawValue: verdict.timelines(trace, model: model)))
        }
        IsolatedCheck.finish()
    }

    static func replayRandom() -> Never {
        // 200 replays take a second or so idle, far longer on a loaded machine: the watchdog
        // waits on while scenarios keep finishing, and ends a replay that stops moving.
        let replayed = Locked(0)
        IsolatedCheck.begin(quiet: 3, limit: 60, in: "the random scenarios", progress: { replayed.current })
        var first: (trace: Trace, verdict: Verdict)?
        var wrong = 0
        for scenario in RandomScenarios.make(count: randomCount) {
            defer { replayed.withLock { $0 += 1 } }
            let trace = Scheduler.run(scenario, with: InheritanceLocks())
            let verdict = Verdict(trace, urgent: nil, model: nil)
            guard !verdict.problems.isEmpty else { continue }
            wrong += 1
            if first == nil { first = (trace, verdict) }
        }
        if let first {
            let (trace, verdict) = first
            Issue.record(Comment(rawValue: "\(wrong) of \(randomCount) random scenarios went wrong. The first: \(verdict.summary(trace))"))
            Issue.record(Comment(rawValue: verdict.timelines(trace, model: Scheduler.run(trace.scenario, with: ModelLocks(trace.scenario)))))
        }
        IsolatedCheck.finish()
    }
}
