import Foundation

/// `grader model <Exercise>`: the exercise's systematic checks (`Model/Checks/<Exercise>/`) on the
/// graded code (the learner's `Exercises/<Exercise>/`; `--solutions`, `--variant NAME` for
/// maintainers), compiled with the twins of the synchronization types, each check explored for a
/// fixed budget of schedules. `grader replay <Exercise> <schedule|code:…> [--check N]` runs one
/// schedule again and draws it.
///
/// The build is `swift build --product model-<Exercise>` with `KATA_MODEL=1` in a folder of its
/// own (`.build-model`), so the learner's `.build` and `swift test` never see the twins.
struct ModelCommand {
    static let scratchPath = ".build-model"
    static let budget = 1_000
    /// A run explores at most a few thousand schedules of 2–3 threads (seconds); a schedule
    /// stalled in a loop without a twin operation is given up after 10 s each by the runner.
    static let runDeadline: Double = 300

    var layout: KataLayout
    var rubric: Rubric
    /// The graded code (the learner's, the solutions, or one variant) and the build system.
    var mode: BuildMode
    /// Where the build's progress line goes: standard error for `grader model`; a grade's own
    /// progress line when the systematic checks run inside a grade.
    var building: @Sendable (String) -> Void = { text in FileHandle.standardError.write(Data((text + "\n").utf8)) }

    init(layout: KataLayout, rubric: Rubric, arguments: Arguments) {
        self.init(layout: layout, rubric: rubric,
                  mode: BuildMode(solutions: arguments.solutions, variant: arguments.variant, buildSystem: arguments.resolvedBuildSystem))
    }

    init(layout: KataLayout, rubric: Rubric, mode: BuildMode) {
        self.layout = layout
        self.rubric = rubric
        self.mode = mode
    }

    /// `grader model <Exercise>`.
    func check(_ name: String) throws -> Int32 {
        let exercise = try Self.select(name)
        print(ModelText.heading(exercise: exercise, folder: mode.sourceFolder(of: exercise), budget: Self.budget))
        let verdict = run(exercise, ["check", "--budget", "\(Self.budget)"])
        print(ModelText.checkResult(verdict, exercise: exercise, replaySuffix: replaySuffix))
        return Self.exitCode(verdict)
    }

    /// `grader replay <Exercise> <schedule|code:…> [--check N]`.
    func replay(_ name: String, _ token: String, check: Int = 1) throws -> Int32 {
        let exercise = try Self.select(name)
        guard token.hasPrefix("code:") || UInt64(token) != nil else {
            throw GraderError.badArguments(L("replay takes a schedule number or code:DECISIONS, as `grader model` prints them, not \(token)",
                                             "replay 需要一个调度编号或 code:DECISIONS（如 `grader model` 所打印），而不是 \(token)"))
        }
        let verdict = run(exercise, ["replay", "\(check)", token])
        print(ModelText.replayResult(verdict, exercise: exercise))
        return Self.exitCode(verdict)
    }

    static func select(_ name: String) throws -> String {
        guard ModelApplicability.exercises.contains(name) else {
            throw GraderError.badArguments(L("the model has checks for ", "模型只有这些练习的检查：") + ModelApplicability.exercises.joined(separator: ", ")
                                           + L(", not \(name)", "，没有 \(name)"))
        }
        return name
    }

    /// 0: every check held; 1: a check failed or could not be judged; 2: could not run;
    /// 3: not applicable (the code uses synchronization the model has no twin of).
    static func exitCode(_ verdict: ModelVerdict) -> Int32 {
        switch verdict {
        case .report(let report): report.checks.allSatisfy { $0.verdict == "pass" } ? 0 : 1
        case .cannotRun: 2
        case .notApplicable: 3
        }
    }

    /// What the replay line repeats so that it runs the same code.
    var replaySuffix: String { Self.replaySuffix(mode, exercise: nil) }

    static func replaySuffix(_ mode: BuildMode, exercise: String?) -> String {
        let variant = exercise.flatMap { mode.variantsByExercise[$0] } ?? (mode.variantsByExercise.isEmpty ? mode.variant : nil)
        return (mode.solutions ? " --solutions" : "") + (variant.map { " --variant \($0)" } ?? "")
    }

    /// The modeled build of `exercise`'s runner: its command and environment (also what `grader
    /// watch` builds ahead of need).
    func buildInvocation(_ exercise: String) -> (arguments: [String], environment: [String: String]) {
        // One exercise at a time: its own variant's name alone (Package.swift's model targets
        // take one name), also in a round of verify where each exercise has its own.
        let variant = mode.variantsByExercise[exercise] ?? (mode.variantsByExercise.isEmpty ? mode.variant ?? "" : "")
        // A variant exists for some exercises only: the others are left out of the package.
        // Otherwise the package is the same for every modeled exercise, so that exploring one
        // after another plans the build once; `--product` compiles only what the runner needs,
        // so another exercise that does not compile does not matter.
        let others = variant.isEmpty ? [] : rubric.exercises.map(\.name).filter { $0 != exercise }
        let environment = ["KATA_MODEL": "1", "KATA_SOLUTIONS": mode.solutions ? "1" : "0", "KATA_VARIANT": variant,
                           "KATA_EXCLUDE": others.joined(separator: ",")]
        return (["swift", "build", "--scratch-path", Self.scratchPath, "--product", "model-\(exercise)"] + mode.buildSystem.swiftPMArguments,
                environment)
    }

    /// Scan, build, run, read: the first step that says something else than "go on" is the answer.
    /// `mayBeEmpty`: the runner was asked for some checks only (`--stress`), and may have run none.
    /// `deadline`: the most the runner may take; `buildDeadline`: the most its build may take.
    func run(_ exercise: String, _ runnerArguments: [String], mayBeEmpty: Bool = false, deadline: Double = runDeadline,
             buildDeadline: Double = 1_200) -> ModelVerdict {
        switch prepare(exercise, buildDeadline: buildDeadline) {
        case .verdict(let verdict): verdict
        case .runner(let runner): execute(runner, exercise, runnerArguments, mayBeEmpty: mayBeEmpty, deadline: deadline)
        }
    }

    /// What scanning and building gave: the runner to start, or already the answer.
    enum Prepared: Sendable {
        case runner(URL)
        case verdict(ModelVerdict)
    }

    /// Scans the graded code and builds `exercise`'s runner. Builds share one folder: one at a time.
    func prepare(_ exercise: String, buildDeadline: Double = 1_200) -> Prepared {
        let folder = layout.root.appendingPathComponent(mode.sourceFolder(of: exercise))
        guard FileTree.isDirectory(folder) else {
            return .verdict(.cannotRun(L("there is no folder \(mode.sourceFolder(of: exercise))", "没有文件夹 \(mode.sourceFolder(of: exercise))")))
        }
        // Named from the course's root, as the compiler's errors are.
        let uses = ModelApplicability.uses(in: folder, exercise: exercise).map { use in
            ModelApplicability.Use(what: use.what, file: mode.sourceFolder(of: exercise) + "/" + use.file, line: use.line)
        }
        if !uses.isEmpty { return .verdict(.notApplicable(uses)) }
        do {
            try FileManager.default.createDirectory(at: layout.stateDirectory, withIntermediateDirectories: true)
            let (build, environment) = buildInvocation(exercise)
            let buildLog = layout.stateDirectory.appendingPathComponent("model-build.log")
            building(L("Building \(exercise) with the model's twins (\(Self.scratchPath))…", "正在用模型的替身构建 \(exercise)（\(Self.scratchPath)）…"))
            let built = try PhaseTimings.shared.measure(PhaseName.modelBuild) {
                try ChildProcess.run(build, in: layout.root, environment: environment, outputFile: buildLog,
                                     limits: ChildLimits(deadline: buildDeadline, keptOutput: 8 << 20))
            }
            if built == .interrupted { return .verdict(.cannotRun(L("interrupted", "已中断"))) }
            if built != .exited(0) {
                return .verdict(ModelBuildErrors.read((try? String(contentsOf: buildLog, encoding: .utf8)) ?? "", exercise: exercise, root: layout.root.path))
            }
            let binPath = try SwiftPMFacts(layout: layout).binPath(
                key: "model-\(mode.buildSystem.rawValue)",
                arguments: ["swift", "build", "--show-bin-path", "--scratch-path", Self.scratchPath] + mode.buildSystem.swiftPMArguments,
                environment: environment)
            return .runner(binPath.appendingPathComponent("model-\(exercise)"))
        } catch {
            return .verdict(.cannotRun("\(error)"))
        }
    }

    /// Runs a built runner and reads its report. Runners of different exercises may run side by
    /// side: each writes files of its own.
    func execute(_ runner: URL, _ exercise: String, _ runnerArguments: [String], mayBeEmpty: Bool = false,
                 deadline: Double = runDeadline) -> ModelVerdict {
        do {
            let report = layout.stateDirectory.appendingPathComponent("model-report-\(exercise).json")
            try? FileManager.default.removeItem(at: report)
            let runLog = layout.stateDirectory.appendingPathComponent("model-run-\(exercise).log")
            let language = Language.current == .simplifiedChinese ? "zh-Hans" : "en"
            let termination = try PhaseTimings.shared.measure(PhaseName.modelRun) {
                try ChildProcess.run(
                    [runner.path] + runnerArguments + ["--lang", language, "--report", report.path],
                    // A trap's message is what the learner needs, not the backtrace after it.
                    in: layout.root, environment: ["SWIFT_BACKTRACE": "enable=no"], outputFile: runLog,
                    limits: ChildLimits(deadline: deadline))
            }
            return ModelRunResult.read(termination: termination, report: try? Data(contentsOf: report),
                                       output: (try? String(contentsOf: runLog, encoding: .utf8)) ?? "", exercise: exercise,
                                       mayBeEmpty: mayBeEmpty)
        } catch {
            return .cannotRun("\(error)")
        }
    }
}

extension FileTree {
    static func isDirectory(_ url: URL) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &directory) && directory.boolValue
    }
}
