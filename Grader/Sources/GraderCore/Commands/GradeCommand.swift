import Foundation

/// `grader [exercise...]`: build, run, score, look for data races in what passes, print, keep
/// history, write the machine-readable reports.
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

    /// Grades `selected`: the suites, then, unless told not to, ThreadSanitizer on the exercises
    /// whose checks all pass, so that "complete" means no data race.
    func grade(_ selected: [Rubric.Exercise], progress: any GradingProgress) throws -> GradeReport {
        let started = Date()
        let mode = BuildMode(solutions: arguments.solutions, sanitize: arguments.sanitize)
        let session = GradingSession(
            layout: layout, rubric: rubric, mode: mode, repetitions: arguments.repetitions,
            timeoutOverride: arguments.timeout, progress: progress)
        var results = try session.grade(selected)
        if arguments.raceCheck && !arguments.sanitize && !Interrupt.requested {
            try RaceCheck(layout: layout, rubric: rubric, mode: mode, progress: progress).apply(to: &results)
        }
        let manifest = IntegrityManifest.load(layout: layout)
        if !arguments.solutions, let manifest {
            for index in results.indices { results[index].copiedFromSolution = manifest.isCopiedFromSolution(results[index].name, layout: layout) }
        }
        var report = GradeReport(mode: mode, exercises: results, modifiedFiles: modifiedFiles(manifest), date: Date())
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    func modifiedFiles(_ committed: IntegrityManifest?) -> [String] {
        guard let committed else { return ["Grader/integrity.json (missing)"] }
        return committed.modifiedProtectedFiles(comparedWith: .compute(layout: layout, rubric: rubric))
    }

    func writeMachineReports(_ report: GradeReport) throws {
        func write(_ data: Data, to path: String?) throws {
            guard let path else { return }
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        }
        try write(JSONReport.encode(report, repetitions: arguments.repetitions), to: arguments.jsonFile)
        try write(Data(JUnitReport.render(report).utf8), to: arguments.junitFile)
        try write(Data(MarkdownReport.render(report).utf8), to: arguments.markdownFile)
        try write(ClassroomReport.encode(report), to: arguments.classroomFile)
    }
}
