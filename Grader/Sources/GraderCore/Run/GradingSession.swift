import Foundation

/// Progress a grading run reports while it works (live on a terminal).
public protocol GradingProgress: Sendable {
    func building(_ mode: BuildMode, excluded: [String])
    func running(_ exercise: String, repetition: Int, of total: Int)
}

public struct SilentProgress: GradingProgress {
    public init() {}
    public func building(_ mode: BuildMode, excluded: [String]) {}
    public func running(_ exercise: String, repetition: Int, of total: Int) {}
}

/// One grading run: build, then each selected exercise's suite in a process of its own.
public struct GradingSession {
    public var layout: KataLayout
    public var rubric: Rubric
    public var mode: BuildMode
    public var repetitions: Int
    /// Overrides every exercise's deadline (seconds per suite run).
    public var timeoutOverride: Double?
    public var progress: any GradingProgress
    /// How long a build may take: a cold build on two cores is under a minute.
    public var buildDeadline: Double = 1_200

    public init(layout: KataLayout, rubric: Rubric, mode: BuildMode, repetitions: Int = 1,
                timeoutOverride: Double? = nil, progress: any GradingProgress = SilentProgress()) {
        self.layout = layout
        self.rubric = rubric
        self.mode = mode
        self.repetitions = max(1, repetitions)
        self.timeoutOverride = timeoutOverride
        self.progress = progress
    }

    var workDirectory: URL { layout.stateDirectory.appendingPathComponent("runs") }

    /// Grades `selected` (rubric exercises); throws when grading itself cannot run.
    public func grade(_ selected: [Rubric.Exercise]) throws -> [ExerciseResult] {
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        let names = selected.map(\.name)
        let unselected = rubric.exercises.map(\.name).filter { !names.contains($0) }
        let (broken, excluded) = try build(excluding: unselected)
        var results: [ExerciseResult] = []
        for exercise in selected {
            if let error = broken[exercise.name] {
                results.append(ExerciseResult(
                    name: exercise.name, title: exercise.title, status: .doesNotCompile(error),
                    checks: exercise.checks.map {
                        CheckResult(test: $0.test, title: $0.test, points: $0.points, earned: 0, passed: false,
                                    message: "does not compile", file: error.file, line: error.line)
                    }, runs: 0, seconds: 0))
                continue
            }
            results.append(try run(exercise, excluded: excluded))
            if Interrupt.requested { break }
        }
        return results
    }

    /// Builds; an exercise that does not compile is left out and the build tried again, so the
    /// others can still be graded. Returns the compile errors by exercise and what was left out.
    func build(excluding initial: [String]) throws -> (broken: [String: CompileError], excluded: [String]) {
        var excluded = initial
        var broken: [String: CompileError] = [:]
        let log = workDirectory.appendingPathComponent("build.log")
        for _ in 0...rubric.exercises.count {
            progress.building(mode, excluded: excluded)
            let termination = try ChildProcess.run(
                mode.buildArguments, in: layout.root, environment: mode.environment(excluding: excluded),
                outputFile: log, deadline: buildDeadline)
            if termination == .exited(0) { return (broken, excluded) }
            if termination == .interrupted { throw GraderError.cannotRun("interrupted") }
            let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            let errors = CompilerDiagnostics.errors(
                in: output, exercises: rubric.exercises.map(\.name), root: layout.root.path)
            var newlyBroken = false
            for error in errors {
                guard let name = error.exercise, !excluded.contains(name) else { continue }
                broken[name] = broken[name] ?? error
                excluded.append(name)
                newlyBroken = true
            }
            if !newlyBroken {
                let shared = errors.first.map { "\($0.file):\($0.line): error: \($0.message)" }
                let tail = output.split(separator: "\n").suffix(15).joined(separator: "\n")
                throw GraderError.cannotRun(
                    "The build failed outside the exercises (\(termination)); grading cannot run.\n" + (shared ?? tail))
            }
        }
        throw GraderError.cannotRun("The build kept failing; see \(layout.relative(log)).")
    }

    /// Runs one exercise's suite `repetitions` times and scores it.
    func run(_ exercise: Rubric.Exercise, excluded: [String]) throws -> ExerciseResult {
        let deadline = timeoutOverride ?? exercise.deadline
        var streams: [EventStream] = []
        var terminations: [Termination] = []
        var findings: [SanitizerFinding] = []
        let start = Date()
        for repetition in 1...repetitions {
            progress.running(exercise.name, repetition: repetition, of: repetitions)
            let attempt = try runSkippingBlamedChecks(exercise, excluded: excluded, deadline: deadline)
            streams.append(attempt.stream)
            terminations.append(attempt.termination)
            findings += attempt.findings
            if Interrupt.requested { break }
        }
        var result = Scoring.score(
            exercise, runs: streams, terminations: terminations, deadline: deadline,
            seconds: Date().timeIntervalSince(start))
        // A data race outranks failing checks (it is often their cause), not a crash or a hang.
        if let race = findings.first(where: { $0.file != nil }) ?? findings.first {
            switch result.status {
            case .complete, .inProgress: result.status = .dataRace(race)
            default: break
            }
        }
        return result
    }

    /// One run of the suite. When a check crashes the process or hangs it past the deadline, the
    /// suite runs again without that check, so the other checks still count. The termination
    /// returned is the first abnormal one (it names the check to blame).
    func runSkippingBlamedChecks(_ exercise: Rubric.Exercise, excluded: [String], deadline: Double)
        throws -> (stream: EventStream, termination: Termination, findings: [SanitizerFinding]) {
        var merged: EventStream?
        var firstAbnormal: Termination?
        var skipped: [String] = []
        var findings: [SanitizerFinding] = []
        let started = Date()
        while true {
            let (stream, termination, found) = try runSuite(exercise, excluded: excluded, deadline: deadline, skipping: skipped)
            findings += found
            if merged == nil { merged = stream } else { merged?.merge(stream) }
            let normal = termination == .exited(0) || termination == .exited(1)
            if !normal && firstAbnormal == nil { firstAbnormal = termination }
            let blamed = stream.unfinished.map(\.id).filter { !skipped.contains($0) }
            // Stop when the run was normal, nothing new can be blamed, or retries have taken
            // as long as two deadlines.
            if normal || blamed.isEmpty || termination == .interrupted || Date().timeIntervalSince(started) > 2 * deadline {
                return (merged ?? stream, firstAbnormal ?? termination, findings)
            }
            skipped += blamed
        }
    }

    func runSuite(_ exercise: Rubric.Exercise, excluded: [String], deadline: Double, skipping: [String])
        throws -> (EventStream, Termination, [SanitizerFinding]) {
        let streamFile = workDirectory.appendingPathComponent("\(exercise.name).jsonl")
        let outputFile = workDirectory.appendingPathComponent("\(exercise.name).log")
        let tsanDirectory = workDirectory.appendingPathComponent("tsan-\(exercise.name)")
        try? FileManager.default.removeItem(at: streamFile)
        var environment = mode.environment(excluding: excluded)
        if mode.sanitize {
            try? FileManager.default.removeItem(at: tsanDirectory)
            try FileManager.default.createDirectory(at: tsanDirectory, withIntermediateDirectories: true)
            // Exit tests capture their child's standard error, so reports go to files; and a
            // report must not change a child's exit code, or the race shows up as a failed
            // check instead of as the data race it is.
            environment["TSAN_OPTIONS"] = "log_path=\(tsanDirectory.path)/report:exitcode=0"
        }
        let termination = try ChildProcess.run(
            mode.testArguments(exercise: exercise.name, eventStream: streamFile.path, excluded: excluded, skipping: skipping),
            in: layout.root, environment: environment, outputFile: outputFile, deadline: deadline)
        var findings: [SanitizerFinding] = []
        if mode.sanitize {
            var text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
            for file in (try? FileManager.default.contentsOfDirectory(at: tsanDirectory, includingPropertiesForKeys: nil)) ?? [] {
                text += (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            }
            findings = SanitizerReport.findings(in: text, exercise: exercise.name)
        }
        return (EventStream(contentsOf: streamFile), termination, findings)
    }
}
