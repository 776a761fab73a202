import Foundation

/// Entry point: parses the command line, runs the command, returns the exit code.
public enum GraderApp {
    public static func main(_ words: [String]) -> Int32 {
        PhaseTimings.shared.restart()
        // The environment's language first, so that a mistake on the command line is explained in it.
        Language.current = .fromEnvironment()
        // And `--lang`, read before the rest, so that a mistake elsewhere on the line is explained in it.
        if let index = words.firstIndex(of: "--lang"), index + 1 < words.count, let language = Language.named(words[index + 1]) {
            Language.current = language
        }
        let arguments: Arguments
        do { arguments = try Arguments.parse(words) } catch {
            printError("grader: \(error)\n" + L("Run `swift run grader --help` for usage.", "用法见 `swift run grader --help`。"))
            return 2
        }
        if let language = arguments.language { Language.current = language }
        if arguments.command == .help {
            print(Arguments.usage)
            return 0
        }
        guard let layout = KataLayout.find() else {
            printError("grader: " + L("run me inside a Concurrency Kata checkout (no Package.swift with Grader/rubric.json above \(FileManager.default.currentDirectoryPath)).",
                                      "请在 Concurrency Kata 的克隆目录里运行（\(FileManager.default.currentDirectoryPath) 及其上层目录里没有带 Grader/rubric.json 的 Package.swift）。"))
            return 2
        }
        MessageCatalog.useForThisRun(layout: layout)
        do {
            let rubric = try Rubric.load(from: layout.rubricFile)
            Interrupt.install()
            // Commands that build, run suites or change files take the clone's lock (watch
            // takes it for each re-grade, so a grader started by hand meanwhile still runs).
            var lock: GradingLock?
            switch arguments.command {
            case .grade, .verify, .reset, .bench, .classGrade, .model, .replay: lock = try takeLock(layout: layout, wait: arguments.wait)
            default: break
            }
            defer { lock?.release() }
            // Commands that build ask SwiftPM for its default build system unless one was chosen,
            // and name it in every SwiftPM command they run.
            var arguments = arguments
            switch arguments.command {
            case .grade, .verify, .watch, .bench, .portability, .model, .replay, .loopBench:
                if arguments.buildSystem == nil { arguments.buildSystem = try SwiftPMFacts(layout: layout).defaultBuildSystem() }
            default: break
            }
            switch arguments.command {
            case .grade: return try GradeCommand(layout: layout, rubric: rubric, arguments: arguments).run()
            case .hint(let name): return try HintCommand.run(name, layout: layout, rubric: rubric)
            case .list: return ListCommand.run(layout: layout, rubric: rubric)
            case .reset(let name): return try ResetCommand.run(name, yes: arguments.yes, layout: layout, rubric: rubric)
            case .checklist: return try MaintenanceCommands.checklist(write: arguments.write, layout: layout, rubric: rubric)
            case .manifest: return try MaintenanceCommands.manifest(write: arguments.write, layout: layout, rubric: rubric)
            case .portability: return try MaintenanceCommands.portability(layout: layout, rubric: rubric, buildSystem: arguments.resolvedBuildSystem)
            case .translations: return try MaintenanceCommands.translations(stamp: arguments.stamp, addMessages: arguments.addMessages, layout: layout, rubric: rubric)
            case .verify: return try VerifyCommand(layout: layout, rubric: rubric, buildSystem: arguments.resolvedBuildSystem, suiteTimes: arguments.suiteTimes).run()
            case .watch: return try WatchCommand(layout: layout, rubric: rubric, arguments: arguments).run()
            case .bench: return try BenchCommand(layout: layout, rubric: rubric, arguments: arguments).run()
            case .loopBench: return try LoopBenchCommand(layout: layout, rubric: rubric, arguments: arguments).run()
            case .classGrade(let folders): return try ClassCommand(layout: layout, rubric: rubric, arguments: arguments, folders: folders).run()
            case .model(let name): return try ModelCommand(layout: layout, rubric: rubric, arguments: arguments).check(name)
            case .replay(let name, let token): return try ModelCommand(layout: layout, rubric: rubric, arguments: arguments).replay(name, token, check: arguments.modelCheck ?? 1)
            case .help: return 0
            }
        } catch let error as GraderError {
            printError("grader: \(error)")
            if case .grade = arguments.command { writeErrorReports(error.description, arguments: arguments, layout: layout) }
            return 2
        } catch {
            printError("grader: \(error)")
            if case .grade = arguments.command { writeErrorReports(error.localizedDescription, arguments: arguments, layout: layout) }
            return 2
        }
    }

    /// The platforms' results when grading could not run: each says why and gives no points.
    static func writeErrorReports(_ message: String, arguments: Arguments, layout: KataLayout) {
        let total = (try? Rubric.load(from: layout.rubricFile))?.totalPoints ?? 0
        func write(_ data: Data?, to path: String?) {
            guard let path, let data else { return }
            try? data.write(to: URL(fileURLWithPath: path), options: .atomic)
        }
        write(try? ClassroomReport.error(message, maxScore: 0), to: arguments.classroomFile)
        write(try? Classroom50Report.error(message, maxScore: total), to: arguments.classroom50File)
        write(try? GradescopeReport.error(message, maxScore: total), to: arguments.gradescopeFile)
    }

    /// The clone's grading lock; waits (saying so) for another grader unless told not to.
    static func takeLock(layout: KataLayout, wait: Bool) throws -> GradingLock {
        try GradingLock.acquire(layout: layout, seconds: wait ? 1_800 : 0) { holder in
            printError(L("Another grader (\(holder)) is grading this clone; waiting for it to finish… (Ctrl-C to stop, --no-wait to refuse instead)",
                         "另一个评分程序（\(holder)）正在给这个克隆评分，等它结束…（Ctrl-C 停止；加 --no-wait 则直接退出）"))
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
                throw GraderError.badArguments(L("no exercise named \(name); the exercises are: ", "没有名为 \(name) 的练习；练习有：") + rubric.exercises.map(\.name).joined(separator: ", "))
            }
            return exercise
        }
    }
}
