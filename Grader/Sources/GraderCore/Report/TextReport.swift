import Foundation

/// The progress table a learner reads after every run.
public enum TextReport {
    /// The table, the score and the next step; with `raceCheckPending`, the table and a line that
    /// says the race check is running (the score follows in `renderRaceVerdicts`).
    public static func render(_ report: GradeReport, history: HistorySummary?, style: Style, raceCheckPending: Bool = false) -> String {
        var lines: [String] = []
        let source = report.mode.solutions ? "Solutions/" : "Exercises/"
        lines.append(style.bold("Concurrency Kata: grading \(source)") + (report.mode.sanitize ? " with ThreadSanitizer" : ""))
        if !report.modifiedFiles.isEmpty {
            lines.append(style.yellow("Warning: these files differ from the committed originals, so this score may not be comparable: ")
                + report.modifiedFiles.prefix(5).joined(separator: ", ")
                + (report.modifiedFiles.count > 5 ? " and \(report.modifiedFiles.count - 5) more" : ""))
        }
        lines.append("")
        let nameWidth = max(8, report.exercises.map(\.title.count).max() ?? 8)
        lines.append("  " + "Exercise".padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  Points  Checks  Status")
        for exercise in report.exercises {
            let points = "\(exercise.points)/\(exercise.totalPoints)".leftPadded(6)
            let checks = "\(exercise.passedChecks)/\(exercise.checks.count)".leftPadded(6)
            lines.append("  " + exercise.title.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
                + "  " + points + "  " + checks + "  " + statusWord(exercise.status, style: style))
            lines += detail(exercise, style: style).map { "      " + $0 }
        }
        lines.append("")
        if raceCheckPending {
            let pending = report.exercises.filter { if case .lookingForRaces = $0.status { true } else { false } }.map(\.name)
            lines.append(style.bold("Points so far: \(report.points)/\(report.totalPoints).") + " Every other check of \(pending.joined(separator: ", ")) passes; ThreadSanitizer is looking for data races (the last check)…")
            return lines.joined(separator: "\n")
        }
        lines += scoreAndNextStep(report, history: history, style: style)
        return lines.joined(separator: "\n")
    }

    /// The second step of a run whose race check ran after the table was shown: one line per
    /// exercise checked, then the score and the next step.
    public static func renderRaceVerdicts(_ report: GradeReport, checked: [String], history: HistorySummary?, style: Style) -> String {
        var lines: [String] = []
        for exercise in report.exercises where checked.contains(exercise.name) {
            let race = exercise.checks.first { $0.test == Rubric.raceCheckTest }
            switch exercise.status {
            case .dataRace(let finding):
                lines.append(style.red("✘ ") + "\(exercise.title): ThreadSanitizer found a data race" + (finding.file.map { " at \($0):\(finding.line ?? 0)" } ?? "") + ": not complete.")
                lines += detail(exercise, style: style).map { "    " + style.dim($0) }
            case .complete, .completeOnThisPlatform:
                lines.append(style.green("✔ ") + "\(exercise.title): no data race" + (race.map { " (+\($0.earned) points)" } ?? "") + ": " + statusWord(exercise.status, style: style) + ".")
                if case .completeOnThisPlatform = exercise.status { lines += detail(exercise, style: style).map { "    " + $0 } }
            default:
                lines.append("\(exercise.title): " + statusWord(exercise.status, style: style) + ".")
            }
        }
        lines.append("")
        lines += scoreAndNextStep(report, history: history, style: style)
        return lines.joined(separator: "\n")
    }

    static func scoreAndNextStep(_ report: GradeReport, history: HistorySummary?, style: Style) -> [String] {
        var lines: [String] = []
        var score = style.bold("Score: \(report.points)/\(report.totalPoints)")
        if let history {
            if let change = history.changeSinceLast {
                score += change == 0 ? " (no change since the last run" : " (\(change > 0 ? "+" : "")\(change) since the last run"
                score += history.best > report.points ? "; best \(history.best))" : ")"
            } else {
                score += " (first run)"
            }
        }
        lines.append(score)
        lines += nextStep(report, style: style)
        return lines
    }

    static func statusWord(_ status: ExerciseStatus, style: Style) -> String {
        switch status {
        case .complete: style.green("complete")
        case .completeOnThisPlatform: style.green("complete on \(Platform.name)")
        case .exitedEarly: style.red("exited early")
        case .outputLimitExceeded: style.red("output limit exceeded")
        case .inProgress: style.yellow("in progress")
        case .doesNotCompile: style.red("does not compile")
        case .timedOut: style.red("timed out")
        case .crashed: style.red("crashed")
        case .dataRace: style.red("data race")
        case .lookingForRaces: style.yellow("looking for data races…")
        case .raceCheckNotRun: style.yellow("race check not run")
        }
    }

    static func detail(_ exercise: ExerciseResult, style: Style) -> [String] {
        switch exercise.status {
        case .complete:
            return []
        case .completeOnThisPlatform(let note):
            return wrapped("Note: \(note)", width: 96).map { style.dim($0) }
        case .exitedEarly(let code, let running):
            return ["The process exited with status \(code) while \(running.map { "\"\($0)\"" } ?? "the suite") was running: something in your code called exit().",
                    "A check passes only when it runs to its end."]
        case .outputLimitExceeded(let running):
            return ["Output limit exceeded in \(running.map { "\"\($0)\"" } ?? "the suite"): more than \(ChildLimits(deadline: 0).outputLimit >> 20) MB were printed; it was stopped.",
                    "Look for a print in a loop."]
        case .inProgress:
            guard let failing = exercise.firstFailing else { return [] }
            return ["✘ " + failing.title] + wrapped(failing.message ?? "", width: 96).map { "  " + style.dim($0) }
        case .doesNotCompile(let error):
            return ["\(error.file):\(error.line): error: \(error.message)"]
        case .timedOut(let running, let seconds):
            return ["Deadlock suspected in \(running.map { "\"\($0)\"" } ?? "the suite"): it was still running after \(Int(seconds)) s and was stopped.",
                    "Look for a wait that is never signalled, a lock taken twice, or sync onto the queue you are already on."]
        case .crashed(let signal, let running):
            let what = signal == 0 ? "The suite exited before it finished" : "Crashed with signal \(signal)"
            return ["\(what) in \(running.map { "\"\($0)\"" } ?? "the suite"): \(Scoring.crashExplanation(signal))."]
        case .dataRace(let finding):
            let place = finding.file.map { " at \($0):\(finding.line ?? 0)" } ?? ""
            return ["ThreadSanitizer: \(finding.summary)\(place): two threads touch that state at once, at least one writing, without protection."]
        case .lookingForRaces:
            return ["Every other check passes. ThreadSanitizer is running the suite once more to look for data races (the last check)."]
        case .raceCheckNotRun(let reason):
            return ["Every other check passes, but the race check did not run (\(reason)): its points are not earned and the exercise is not complete."]
        }
    }

    static func nextStep(_ report: GradeReport, style: Style) -> [String] {
        guard let exercise = report.exercises.first(where: { !$0.isComplete }) else {
            if report.exercises.count == 1, let only = report.exercises.first {
                return ["", style.green("\(only.name) is complete. Well done!") + " See where you stand in the course: swift run grader list"]
            }
            return report.exercises.isEmpty ? [] : [style.green("Every exercise is complete. Well done!")]
        }
        var lines = [""]
        switch exercise.status {
        case .doesNotCompile(let error):
            lines.append(style.bold("Next: ") + "make \(exercise.name) compile (\(error.file):\(error.line)).")
        case .inProgress:
            lines.append(style.bold("Next: ") + "in \(exercise.name), make \"\(exercise.firstFailing?.title ?? "")\" pass.")
        case .raceCheckNotRun:
            lines.append(style.bold("Next: ") + "grade \(exercise.name) without --no-race-check: the race check is its last check.")
            return lines
        case .dataRace(let finding):
            lines.append(style.bold("Next: ") + "in \(exercise.name), protect the state that two threads touch at once" + (finding.file.map { " (\($0):\(finding.line ?? 0))" } ?? "") + ".")
            lines.append("      See the whole report: swift run grader \(exercise.name) --sanitize")
            lines.append("      Get a hint:           swift run grader hint \(exercise.name)")
            return lines
        default:
            lines.append(style.bold("Next: ") + "fix \(exercise.name) (\(exercise.status.keyword.replacingOccurrences(of: "_", with: " "))).")
        }
        lines.append("      Run its suite: swift test --filter \(exercise.name)Tests")
        lines.append("      Get a hint:    swift run grader hint \(exercise.name)")
        return lines
    }

    static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty && current.count + word.count + 1 > width {
                lines.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
