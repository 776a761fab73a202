import Foundation

/// The screen a learner reads after every run: one line per exercise, where the course stands,
/// and the detail (the first failing check, its message, the next step) for the exercise in focus
/// only, so that the answer to "where am I, and what do I do next?" fits one terminal page.
public enum TextReport {
    /// The table, the course's progress, the focus's detail, the score and the next step. With
    /// `raceCheckPending`, the table and a line that says the race check is running (the rest
    /// follows in `renderRaceVerdicts`).
    public static func render(_ report: GradeReport, screen: Screen, style: Style, raceCheckPending: Bool = false) -> String {
        var lines = header(report, style: style)
        lines += table(report, screen: screen, style: style)
        lines.append("")
        if raceCheckPending {
            let pending = report.exercises.filter { if case .lookingForRaces = $0.status { true } else { false } }.map(\.name)
            lines.append(style.bold("Points so far: \(report.points)/\(report.totalPoints).") + " Every other check of \(pending.joined(separator: ", ")) passes; ThreadSanitizer is looking for data races (the last check)…")
            return lines.joined(separator: "\n")
        }
        lines += progress(report, screen: screen, style: style)
        lines += focus(report, screen: screen, style: style)
        return lines.joined(separator: "\n")
    }

    /// The second step of a run whose race check ran after the table was shown: one line per
    /// exercise checked, then the progress, the focus's detail and the next step.
    public static func renderRaceVerdicts(_ report: GradeReport, checked: [String], screen: Screen, style: Style) -> String {
        var lines: [String] = []
        for exercise in report.exercises where checked.contains(exercise.name) {
            let race = exercise.checks.first { $0.test == Rubric.raceCheckTest }
            switch exercise.status {
            case .dataRace(let finding):
                lines.append(style.red("✘ ") + "\(exercise.name): ThreadSanitizer found a data race" + (finding.file.map { " at \($0):\(finding.line ?? 0)" } ?? "") + ": not complete.")
            case .complete, .completeOnThisPlatform:
                lines.append(style.green("✔ ") + "\(exercise.name): no data race" + (race.map { " (+\($0.earned) points)" } ?? "") + ": " + statusWord(exercise.status, style: style) + ".")
            default:
                lines.append("\(exercise.name): " + statusWord(exercise.status, style: style) + ".")
            }
        }
        lines.append("")
        lines += progress(report, screen: screen, style: style)
        lines += focus(report, screen: screen, style: style)
        return lines.joined(separator: "\n")
    }

    static func header(_ report: GradeReport, style: Style) -> [String] {
        var lines = [style.bold("Concurrency Kata · grading \(report.mode.solutions ? "Solutions/" : "Exercises/")") + (report.mode.sanitize ? " with ThreadSanitizer" : "")]
        if !report.modifiedFiles.isEmpty {
            lines.append(style.yellow("Warning: these files differ from the committed originals, so this score may not be comparable: ")
                + report.modifiedFiles.prefix(5).joined(separator: ", ")
                + (report.modifiedFiles.count > 5 ? " and \(report.modifiedFiles.count - 5) more" : ""))
        }
        return lines + [""]
    }

    /// One line per exercise: number, name, points, checks, status; with `--verbose`, each
    /// exercise's detail under its line.
    static func table(_ report: GradeReport, screen: Screen, style: Style) -> [String] {
        let numberWidth = max(1, String(screen.numbers.values.max() ?? report.exercises.count).count)
        let nameWidth = max(TextLayout.width("Exercise"), report.exercises.map { TextLayout.width($0.name) }.max() ?? 0)
        let pointsWidth = max(6, report.exercises.map { "\($0.points)/\($0.totalPoints)".count }.max() ?? 0)
        let checksWidth = max(6, report.exercises.map { "\($0.passedChecks)/\($0.checks.count)".count }.max() ?? 0)
        func row(_ number: String, _ name: String, _ points: String, _ checks: String, _ status: String) -> String {
            "  " + TextLayout.pad(number, to: numberWidth, alignRight: true) + "  " + TextLayout.pad(name, to: nameWidth)
                + "  " + TextLayout.pad(points, to: pointsWidth, alignRight: true) + "  " + TextLayout.pad(checks, to: checksWidth, alignRight: true)
                + "  " + status
        }
        var lines = [style.dim(row("#", "Exercise", "Points", "Checks", "Status"))]
        for (index, exercise) in report.exercises.enumerated() {
            let number = screen.numbers[exercise.name].map(String.init) ?? String(index + 1)
            let marker = exercise.name == screen.focus && !screen.verbose ? " ◀" : ""
            lines.append(row(number, exercise.name, "\(exercise.points)/\(exercise.totalPoints)",
                             "\(exercise.passedChecks)/\(exercise.checks.count)", statusWord(exercise.status, style: style) + marker))
            if screen.verbose { lines += detail(exercise, screen: screen, style: style, prefix: "      ") }
        }
        return lines
    }

    /// The score of this run (with the change since the last one), and the course's progress:
    /// exercises complete, points, and a bar on a terminal.
    static func progress(_ report: GradeReport, screen: Screen, style: Style) -> [String] {
        var score = style.bold("Score: \(report.points)/\(report.totalPoints)")
        if let history = screen.history {
            if let change = history.changeSinceLast {
                score += change == 0 ? " (no change since the last run" : " (\(change > 0 ? "+" : "")\(change) since the last run"
                score += history.best > report.points ? "; best \(history.best))" : ")"
            } else {
                score += " (first run)"
            }
        }
        guard let course = screen.course else { return [score] }
        var line = "Course: \(course.complete) of \(course.exercises) exercises complete"
        if course.totalPoints != report.totalPoints { line += " · \(course.points)/\(course.totalPoints) points" }
        if screen.width != nil {
            let cells = 20
            let filled = course.totalPoints == 0 ? 0 : min(cells, course.points * cells / course.totalPoints)
            let percent = course.totalPoints == 0 ? 0 : course.points * 100 / course.totalPoints
            line += "  " + style.green(String(repeating: "█", count: filled)) + style.dim(String(repeating: "░", count: cells - filled)) + " \(percent) %"
        }
        return [score, line]
    }

    /// The exercise in focus: its detail and the next step; or the congratulations.
    static func focus(_ report: GradeReport, screen: Screen, style: Style) -> [String] {
        guard let name = screen.focus, let exercise = report.exercises.first(where: { $0.name == name }) else {
            if report.exercises.count == 1, let only = report.exercises.first, only.isComplete {
                return ["", style.green("\(only.name) is complete. Well done!") + " See where you stand in the course: swift run grader list"]
            }
            return report.exercises.isEmpty || !report.allComplete ? [] : ["", style.green("Every exercise is complete. Well done!")]
        }
        var lines = [""]
        if !screen.verbose {
            let number = screen.numbers[name].map { "\($0). " } ?? ""
            lines.append(style.bold("▶ \(number)\(exercise.title)") + " (\(exercise.name)): " + statusWord(exercise.status, style: style))
            lines += detail(exercise, screen: screen, style: style, prefix: "  ")
        }
        return lines + nextStep(exercise, style: style)
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

    /// What an exercise's status means for the learner, each line after `prefix`, messages
    /// keeping their own indentation and wrapped to the terminal's width (not at all on a pipe).
    static func detail(_ exercise: ExerciseResult, screen: Screen, style: Style, prefix: String) -> [String] {
        func text(_ body: String) -> [String] { TextLayout.indented(body, prefix: prefix, width: screen.width) }
        switch exercise.status {
        case .complete:
            return []
        case .completeOnThisPlatform(let note):
            return text("Note: \(note)").map { style.dim($0) }
        case .exitedEarly(let code, let running):
            return text("The process exited with status \(code) while \(running.map { "\"\($0)\"" } ?? "the suite") was running: something in your code called exit(). A check passes only when it runs to its end.")
        case .outputLimitExceeded(let running):
            return text("Output limit exceeded in \(running.map { "\"\($0)\"" } ?? "the suite"): more than \(ChildLimits(deadline: 0).outputLimit >> 20) MB were printed; it was stopped. Look for a print in a loop.")
        case .inProgress:
            guard let failing = exercise.firstFailing else { return [] }
            return text("✘ " + failing.title) + TextLayout.indented(failing.message ?? "", prefix: prefix + "  ", width: screen.width).map { style.dim($0) }
        case .doesNotCompile(let error):
            return text("\(error.file):\(error.line): error: \(error.message)")
        case .timedOut(let running, let seconds):
            return text("Deadlock suspected in \(running.map { "\"\($0)\"" } ?? "the suite"): it was still running after \(Int(seconds)) s and was stopped. Look for a wait that is never signalled, a lock taken twice, or sync onto the queue you are already on.")
        case .crashed(let signal, let running):
            let what = signal == 0 ? "The suite exited before it finished" : "Crashed with signal \(signal)"
            return text("\(what) in \(running.map { "\"\($0)\"" } ?? "the suite"): \(Scoring.crashExplanation(signal)).")
        case .dataRace(let finding):
            let place = finding.file.map { " at \($0):\(finding.line ?? 0)" } ?? ""
            return text("ThreadSanitizer: \(finding.summary)\(place): two threads touch that state at once, at least one writing, without protection.")
        case .lookingForRaces:
            return text("Every other check passes. ThreadSanitizer is running the suite once more to look for data races (the last check).")
        case .raceCheckNotRun(let reason):
            return text("Every other check passes, but the race check did not run (\(reason)): its points are not earned and the exercise is not complete.")
        }
    }

    static func nextStep(_ exercise: ExerciseResult, style: Style) -> [String] {
        guard !exercise.isComplete else { return [] }
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

    /// Words of `text` in lines of at most `width` characters (for the bench's notes).
    static func wrapped(_ text: String, width: Int) -> [String] {
        TextLayout.indented(text, prefix: "", width: width)
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
