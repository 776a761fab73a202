import Foundation

/// Entry point: parses the command line, runs the command, returns the exit code.
public enum GraderApp {
    public static func main(_ words: [String]) -> Int32 {
        let arguments: Arguments
        do { arguments = try Arguments.parse(words) } catch {
            printError("grader: \(error)\nRun `swift run grader --help` for usage.")
            return 2
        }
        if arguments.command == .help {
            print(Arguments.usage)
            return 0
        }
        guard let layout = KataLayout.find() else {
            printError("grader: run me inside a Concurrency Kata checkout (no Package.swift with Grader/rubric.json above \(FileManager.default.currentDirectoryPath)).")
            return 2
        }
        do {
            let rubric = try Rubric.load(from: layout.rubricFile)
            Interrupt.install()
            switch arguments.command {
            case .grade: return try GradeCommand(layout: layout, rubric: rubric, arguments: arguments).run()
            case .hint(let name): return try HintCommand.run(name, layout: layout, rubric: rubric)
            case .list: return ListCommand.run(layout: layout, rubric: rubric)
            case .reset(let name): return try ResetCommand.run(name, yes: arguments.yes, layout: layout, rubric: rubric)
            case .checklist: return try MaintenanceCommands.checklist(write: arguments.write, layout: layout, rubric: rubric)
            case .manifest: return try MaintenanceCommands.manifest(write: arguments.write, layout: layout, rubric: rubric)
            case .verify: return try VerifyCommand(layout: layout, rubric: rubric).run()
            case .help: return 0
            }
        } catch {
            printError("grader: \(error)")
            return 2
        }
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Rubric exercises for the names given (all when none); unknown names are an error.
    static func select(_ names: [String], from rubric: Rubric) throws -> [Rubric.Exercise] {
        if names.isEmpty { return rubric.exercises }
        return try names.map { name in
            guard let exercise = rubric.exercise(named: name) else {
                throw GraderError.badArguments("no exercise named \(name); the exercises are: \(rubric.exercises.map(\.name).joined(separator: ", "))")
            }
            return exercise
        }
    }
}

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

/// `grader hint <exercise>`: one more hint each time.
enum HintCommand {
    static func run(_ name: String, layout: KataLayout, rubric: Rubric) throws -> Int32 {
        let exercise = try GraderApp.select([name], from: rubric)[0]
        guard let text = try? String(contentsOf: layout.hintsFile(exercise.name), encoding: .utf8) else {
            throw GraderError.cannotRun("no hints file at \(layout.relative(layout.hintsFile(exercise.name)))")
        }
        let hints = Hints.parse(text)
        guard !hints.isEmpty else { throw GraderError.cannotRun("\(layout.relative(layout.hintsFile(exercise.name))) has no `## ` hint headings") }
        var progress = HintProgress(file: layout.stateDirectory.appendingPathComponent("hints.json"))
        let count = try progress.reveal(exercise.name, available: hints.count)
        let style = Style.detect()
        for (index, hint) in hints.prefix(count).enumerated() {
            print(style.bold("Hint \(index + 1) of \(hints.count): ") + hint.title.replacingOccurrences(of: "Hint \(index + 1): ", with: ""))
            print(hint.body)
            print("")
        }
        print(style.dim(count < hints.count
            ? "Ask again for the next hint: swift run grader hint \(exercise.name)"
            : "That was the last hint. The README in Exercises/\(exercise.name)/ explains the concepts in full."))
        return 0
    }
}

/// `grader list`: exercises in course order with their status from the last run.
enum ListCommand {
    static func run(layout: KataLayout, rubric: Rubric) -> Int32 {
        let statuses = History(file: layout.stateDirectory.appendingPathComponent("history.json")).latestStatuses
        for (index, exercise) in rubric.exercises.enumerated() {
            let status = statuses[exercise.name].map { $0.replacingOccurrences(of: "_", with: " ") } ?? "not graded yet"
            print("\(index + 1). \(exercise.name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(exercise.title.padding(toLength: 34, withPad: " ", startingAt: 0)) \(exercise.totalPoints) points  \(status)")
        }
        return 0
    }
}

/// `grader checklist` and `grader manifest`: print, or write with `--write`.
enum MaintenanceCommands {
    static func checklist(write: Bool, layout: KataLayout, rubric: Rubric) throws -> Int32 {
        let text = Checklist.render(rubric: rubric, layout: layout)
        if write { try Data(text.utf8).write(to: layout.checklistFile, options: .atomic); print("wrote CHECKLIST.md") } else { print(text) }
        return 0
    }

    static func manifest(write: Bool, layout: KataLayout, rubric: Rubric) throws -> Int32 {
        let manifest = IntegrityManifest.compute(layout: layout, rubric: rubric)
        if write { try manifest.write(layout: layout); print("wrote Grader/integrity.json") } else {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(manifest), as: UTF8.self))
        }
        return 0
    }
}
