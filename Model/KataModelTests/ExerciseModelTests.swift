import Foundation
import KataModel
import ModeledBoundedBufferSolution
import ModeledBoundedBufferSubtleRace
import ModeledDeadlocksOppositeOrder
import ModeledDeadlocksSolution
import ModeledGatesAndOnceCheckThenAct
import ModeledGatesAndOnceSolution
import ModeledThreadSafeDictionarySolution
import ModeledThreadSafeDictionarySubtleRace
import Testing

/// The proof of issue 39's model mode on real exercise code: the exercises' reference solutions
/// and wrong implementations, compiled unchanged with the twins, under each exercise's checks.
@Suite struct ExerciseModelTests {
    /// Schedules a right implementation must pass per check here; `KATA_MODEL_SCHEDULES=100000`
    /// runs the long version.
    static let rightBudget = ProcessInfo.processInfo.environment["KATA_MODEL_SCHEDULES"].flatMap(Int.init) ?? 2_000
    /// Within how many schedules each order bug must be found.
    static let wrongBudget = 1_000

    static let right: [(String, [ModelCheck])] = [
        ("ThreadSafeDictionary solution", ModeledThreadSafeDictionarySolution.modelChecks),
        ("BoundedBuffer solution", ModeledBoundedBufferSolution.modelChecks),
        ("Deadlocks solution", ModeledDeadlocksSolution.modelChecks),
        ("GatesAndOnce SessionQueue solution", ModeledGatesAndOnceSolution.modelChecks),
    ]

    @Test(arguments: right)
    func rightImplementationsPassEverySchedule(_ implementation: String, _ checks: [ModelCheck]) {
        let start = Date()
        var schedules = 0
        for check in checks {
            let result = Explorer(budget: Self.rightBudget).explore(check.body)
            schedules += result.tried
            if let failure = result.failure {
                Issue.record("\(implementation), \(check.name):\n\(SwimLanes.render(failure))")
            }
        }
        let seconds = Date().timeIntervalSince(start)
        print("[model] \(implementation): \(schedules) schedules over \(checks.count) checks in \(String(format: "%.2f", seconds)) s (\(Int(Double(schedules) / seconds)) per second)")
    }

    /// A wrong implementation, the check that must find it, and how it must end.
    struct Wrong: Sendable, CustomTestStringConvertible {
        let implementation: String
        let check: ModelCheck
        let deadlock: Bool
        var testDescription: String { "\(implementation): \(check.name)" }
    }

    static let wrong: [Wrong] = [
        Wrong(implementation: "ThreadSafeDictionary SubtleRace", check: ModeledThreadSafeDictionarySubtleRace.modelChecks[0], deadlock: false),
        Wrong(implementation: "BoundedBuffer SubtleRace", check: ModeledBoundedBufferSubtleRace.modelChecks[0], deadlock: true),
        Wrong(implementation: "Deadlocks OppositeOrder", check: ModeledDeadlocksOppositeOrder.modelChecks[0], deadlock: true),
        Wrong(implementation: "GatesAndOnce CheckThenAct", check: ModeledGatesAndOnceCheckThenAct.modelChecks[0], deadlock: false),
    ]

    @Test(arguments: wrong)
    func orderBugsAreFoundTheSameWayEveryRunAndReplay(_ wrong: Wrong) throws {
        let explorer = Explorer(budget: Self.wrongBudget)
        let start = Date()
        let found = explorer.explore(wrong.check.body)
        let seconds = Date().timeIntervalSince(start)
        let failure = try #require(found.failure, "\(wrong.testDescription) passed \(found.tried) schedules")
        if case .deadlock = failure.schedule.outcome {
            #expect(wrong.deadlock, "\(wrong.testDescription) deadlocked where a violated property was expected")
        } else {
            #expect(!wrong.deadlock, "\(wrong.testDescription): expected a deadlock, got \(failure.schedule.outcome)")
        }
        // The same schedule on every run, and again from its number and from its decisions.
        let again = try #require(explorer.explore(wrong.check.body).failure)
        #expect(again.number == failure.number)
        #expect(again.code == failure.code)
        #expect(SwimLanes.render(again) == SwimLanes.render(failure))
        let replayed = explorer.replay(failure.number, wrong.check.body)
        #expect(replayed.decisions == failure.schedule.decisions)
        #expect(replayed.outcome == failure.schedule.outcome)
        let fromCode = try #require(explorer.replay(code: failure.code, wrong.check.body))
        #expect(fromCode.outcome == failure.schedule.outcome)
        print("[model] \(wrong.testDescription): found after \(failure.tried) schedules in \(String(format: "%.3f", seconds)) s\n\(SwimLanes.render(failure))\n")
    }
}
