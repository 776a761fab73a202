import Foundation

/// `grader [exercise...]`: build, run, score, print, keep history, write JSON/JUnit.
struct GradeCommand {
    var layout: KataLayout
    var rubric: Rubric
    var arguments: Arguments

    func run() throws -> Int32 {
        let selected = try GraderApp.select(arguments.exercises, from: rubric)
        let style = Style.detect()
        let progress = TerminalProgress(style: style)
        let report = try grade(selected, progress: progress)
        progress.clear()
        if Interrupt.requested {
            print("Interrupted: every process the grader started was stopped; no score was recorded.")
            return 2
        }
        var history = History(file: layout.stateDirectory.appendingPathComponent("history.json"))
        if let warning = history.warning { print(style.yellow("Warning: " + warning)) }
        let summary = history.summary(for: report.exercises, solutions: arguments.solutions)
        print(TextReport.render(report, history: summary, style: style))
        do { try history.record(report.exercises, solutions: arguments.solutions) } catch {
            print(style.yellow("Warning: the run could not be added to the history: \(error.localizedDescription)"))
        }
        try writeMachineReports(report)
        return report.allComplete ? 0 : 1
    }

    func grade(_ selected: [Rubric.Exercise], progress: any GradingProgress) throws -> GradeReport {
        let mode = BuildMode(solutions: arguments.solutions, sanitize: arguments.sanitize)
        let session = GradingSession(
            layout: layout, rubric: rubric, mode: mode, repetitions: arguments.repetitions,
            timeoutOverride: arguments.timeout, progress: progress)
        let results = try session.grade(selected)
        return GradeReport(mode: mode, exercises: results, modifiedFiles: modifiedFiles(), date: Date())
    }

    func modifiedFiles() -> [String] {
        guard let committed = IntegrityManifest.load(layout: layout) else { return ["Grader/integrity.json (missing)"] }
        return committed.modifiedProtectedFiles(comparedWith: .compute(layout: layout, rubric: rubric))
    }

    func writeMachineReports(_ report: GradeReport) throws {
        if let path = arguments.jsonFile {
            try JSONReport.encode(report, repetitions: arguments.repetitions)
                .write(to: URL(fileURLWithPath: path), options: .atomic)
        }
        if let path = arguments.junitFile {
            try Data(JUnitReport.render(report).utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        }
    }
}
