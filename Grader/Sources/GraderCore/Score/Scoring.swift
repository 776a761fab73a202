import Foundation

/// Turns suite runs into check results and a status, with the rubric's points.
public enum Scoring {
    /// Scores one exercise from the runs of its suite (one per repetition). A check earns its
    /// points only if it passed in every run. `termination` is how the last run ended.
    public static func score(
        _ exercise: Rubric.Exercise, runs: [EventStream], terminations: [Termination],
        deadline: Double, seconds: Double
    ) -> ExerciseResult {
        let declared = runs.first(where: { !$0.declared.isEmpty })?.declared ?? []
        var checks: [CheckResult] = []
        for check in exercise.checks {
            let test = declared.first { $0.name == check.test }
            var passed = test != nil && !runs.isEmpty
            var firstIssue: IssueReport?
            for run in runs {
                guard let test else { break }
                let outcome = run.runs[test.id] ?? TestRun()
                if !outcome.passed {
                    passed = false
                    if firstIssue == nil {
                        firstIssue = outcome.issues.first
                            ?? IssueReport(message: outcome.started ? "The check did not finish: the suite stopped while it was running." : "The check did not run.")
                    }
                }
            }
            if test == nil {
                firstIssue = IssueReport(message: "No test named \(check.test)() was found in Tests/\(exercise.name)Tests: were the tests edited?")
            }
            checks.append(CheckResult(
                test: check.test, title: test?.displayName ?? check.test, points: check.points,
                earned: passed ? check.points : 0, passed: passed,
                message: passed ? nil : firstIssue?.message, file: firstIssue?.file, line: firstIssue?.line))
        }
        let status = status(checks: checks, runs: runs, terminations: terminations, deadline: deadline)
        return ExerciseResult(
            name: exercise.name, title: exercise.title, status: status, checks: checks,
            runs: runs.count, seconds: seconds)
    }

    static func status(checks: [CheckResult], runs: [EventStream], terminations: [Termination], deadline: Double) -> ExerciseStatus {
        for (run, termination) in zip(runs, terminations) {
            let running = run.unfinished.first?.displayName
            switch termination {
            case .timedOut, .interrupted:
                return .timedOut(runningTest: running, seconds: deadline)
            case .signalled(let signal):
                return .crashed(signal: signal, runningTest: running)
            case .exited:
                if !run.runEnded {
                    // The process ended without finishing the run: a trap inside a test.
                    if case .exited(let code) = termination, code != 0 && code != 1 {
                        return .crashed(signal: 0, runningTest: running)
                    }
                }
            }
        }
        if let failing = checks.first(where: { !$0.passed }) { return .inProgress(firstFailing: failing.title) }
        return .complete
    }

    /// A word on what usually causes a signal, for the learner.
    public static func crashExplanation(_ signal: Int32) -> String {
        switch signal {
        case 11, 10: "a memory error: usually two threads changed the same storage at once without protection"
        case 4, 5: "a Swift runtime trap: a force unwrap of nil, an index out of range, a precondition, or DispatchGroup.leave() called more often than enter()"
        case 6: "an abort: often a fatalError or an unbalanced DispatchGroup/semaphore"
        case 9: "killed: the process ran out of time or memory"
        default: "the process died"
        }
    }
}
