import Foundation

/// Progress a grading run reports while it works (live on a terminal).
public protocol GradingProgress: Sendable {
    func building(_ mode: BuildMode, excluded: [String])
    /// The checks running now, the longest-running first, with their seconds so far.
    func running(_ checks: [(test: DeclaredTest, seconds: Double)])
    /// A step that is neither building nor running checks ("looking for data races…").
    func note(_ text: String)
}

public struct SilentProgress: GradingProgress {
    public init() {}
    public func building(_ mode: BuildMode, excluded: [String]) {}
    public func running(_ checks: [(test: DeclaredTest, seconds: Double)]) {}
    public func note(_ text: String) {}
}

/// One grading run: build, then every selected exercise's suite.
///
/// The suites run together, in parallel, as `swift test` runs them (in one process with the native
/// build system, in one process per suite with Swift Build: `runTogether`): that is the fast path,
/// and what a correct solution or an untouched stub takes. Only when a process dies, hangs, exits
/// early or floods its output are the checks left without a result run again, exercise by
/// exercise (`rerun`): by themselves first after a crash or an exit, and one at a time where that
/// is not enough, so that the check to blame is known and the others still count.
public struct GradingSession: Sendable {
    public var layout: KataLayout
    public var rubric: Rubric
    public var mode: BuildMode
    public var repetitions: Int
    /// Overrides every exercise's deadline (seconds per suite run).
    public var timeoutOverride: Double?
    public var progress: any GradingProgress
    /// More environment for the test process (verify's `KATA_MISBEHAVE`).
    public var testEnvironment: [String: String] = [:]
    /// Replaces the test binary; for the grader's own tests.
    var testCommand: [String]?
    /// Replaces the test products SwiftPM names; for the grader's own tests.
    var testProducts: TestProducts?
    /// Output after which a suite run is stopped.
    public var outputLimit = ChildLimits(deadline: 0).outputLimit
    /// ThreadSanitizer's report folders get names that only quoting survives (verify's proof).
    public var awkwardReportPath = false
    /// Runs the test command through this (verify's faults).
    var commandPrefix: [String] = []

    public init(layout: KataLayout, rubric: Rubric, mode: BuildMode, repetitions: Int = 1,
                timeoutOverride: Double? = nil, progress: any GradingProgress = SilentProgress()) {
        self.layout = layout
        self.rubric = rubric
        self.mode = mode
        self.repetitions = max(1, repetitions)
        self.timeoutOverride = timeoutOverride
        self.progress = progress
    }

    var workDirectory: URL {
        layout.stateDirectory.appendingPathComponent("runs/" + (mode.variant.map { "variant-\($0)" } ?? (mode.solutions ? "solutions" : "exercises")) + (mode.sanitize ? "-tsan" : ""))
    }

    /// A suite run's deadline. ThreadSanitizer makes code 5 to 15 times slower: a sanitized run
    /// that ends late would be a race check that could not run, not a verdict, so it waits longer.
    func deadline(_ exercise: Rubric.Exercise) -> Double {
        timeoutOverride ?? exercise.deadline * (mode.sanitize ? Self.sanitizedDeadlineFactor : 1)
    }

    static let sanitizedDeadlineFactor = 4.0

    /// Grades `selected` (rubric exercises); throws when grading itself cannot run.
    public func grade(_ selected: [Rubric.Exercise]) throws -> [ExerciseResult] {
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        let names = selected.map(\.name)
        let unselected = rubric.exercises.map(\.name).filter { !names.contains($0) }
        let builder = Builder(layout: layout, rubric: rubric, mode: mode, progress: progress,
                              log: workDirectory.appendingPathComponent("build.log"))
        let (broken, excluded) = try builder.build(excluding: unselected)
        return try PhaseTimings.shared.measure(mode.sanitize ? PhaseName.sanitizedRun : PhaseName.suites) {
            try gradeBuilt(selected, broken: broken, excluded: excluded)
        }
    }

    /// Runs and scores `selected` once built; `broken` are those that did not compile.
    func gradeBuilt(_ selected: [Rubric.Exercise], broken: [String: CompileError] = [:], excluded: [String] = []) throws -> [ExerciseResult] {
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        let compiled = selected.filter { broken[$0.name] == nil }

        var runs: [String: [SuiteRun]] = [:]
        var seconds: [String: Double] = [:]
        for _ in 1...repetitions where !compiled.isEmpty {
            for (name, outcome) in try gradeOnce(compiled, excluded: excluded) {
                runs[name, default: []].append(outcome.run)
                seconds[name, default: 0] += outcome.seconds
            }
            if Interrupt.requested { break }
        }
        return selected.map { exercise in
            if let error = broken[exercise.name] {
                var result = Scoring.doesNotCompile(exercise, error)
                if mode.sanitize { result.record(.couldNotRun(reason: SanitizedRunVerdict.buildFailed(error))) }
                return result
            }
            let exerciseRuns = runs[exercise.name] ?? []
            var result = Scoring.score(
                exercise, runs: exerciseRuns.map(\.stream), terminations: exerciseRuns.map(\.termination),
                deadline: deadline(exercise), seconds: seconds[exercise.name] ?? 0)
            if mode.sanitize {
                var verdict = SanitizedRunVerdict.verdict(for: exercise, runs: exerciseRuns, files: sanitizedFiles(exercise.name), filesOf: sanitizedFiles)
                if case .race(var finding) = verdict, let folder = exerciseRuns.first?.reportFolder {
                    finding.reportFolder = layout.relative(folder)
                    verdict = .race(finding)
                }
                result.record(verdict)
            }
            result.declared = exerciseRuns.first { !$0.stream.declared.isEmpty }?.stream.declared ?? []
            return result
        }
    }

    /// The graded exercise's source files (its own and its given code), for reports that name a
    /// file by its base name only.
    func sanitizedFiles(_ exercise: String) -> [String] {
        [mode.sourceFolder(of: exercise), "Given/\(exercise)"].flatMap { IntegrityManifest.files(under: $0, layout: layout) }
            .filter { $0.hasSuffix(".swift") }
    }

    /// One repetition over `exercises`: the parallel run, then the one-at-a-time reruns where
    /// checks were left without a result. Returns, per exercise, its merged run and the seconds
    /// its checks took (from its first check's start to its last check's end in the shared run,
    /// plus its reruns).
    func gradeOnce(_ exercises: [Rubric.Exercise], excluded: [String]) throws -> [String: (run: SuiteRun, seconds: Double)] {
        let runner = SuiteRunner(layout: layout, mode: mode, excluded: excluded, workDirectory: workDirectory,
                                 progress: progress, environment: testEnvironment, testCommand: testCommand,
                                 outputLimit: outputLimit, awkwardReportPath: awkwardReportPath, commandPrefix: commandPrefix,
                                 products: testCommand == nil ? try testProducts ?? TestProducts.of(mode, layout: layout) : nil)
        let runsTogether = try runTogether(exercises, runner: runner)
        var outcomes: [String: (run: SuiteRun, seconds: Double)] = [:]
        var needingReruns: [(exercise: Rubric.Exercise, run: SuiteRun, share: Double, left: [DeclaredTest], ended: Termination)] = []
        for exercise in exercises {
            guard let together = runsTogether[exercise.name] else { continue }
            var run = together
            run.stream = together.stream.restricted(toIDsWithPrefix: "\(exercise.name)Tests.")
            if together.termination.isNormal { run.termination = .exited(0) }
            let left = run.stream.withoutResult
            let endedCleanly = together.termination.isNormal && together.stream.runEnded
            let share = run.stream.activeSeconds
            guard !Interrupt.requested, !endedCleanly, !left.isEmpty || run.stream.declared.isEmpty else {
                outcomes[exercise.name] = (run, share)
                continue
            }
            needingReruns.append((exercise, run, share, left, together.termination))
        }
        // Exercises are independent: their reruns go side by side, as many as the suites' own runs
        // (each rerun runs one check at a time).
        let rerunsNeeded = needingReruns
        let merged = MergedProgress(progress)
        let reruns = Self.inParallel(rerunsNeeded.count, width: Self.parallelSuiteProcesses) { index -> Result<(SuiteRun, Double), any Error> in
            let needed = rerunsNeeded[index]
            var own = runner
            own.progress = merged.part(needed.exercise.name)
            defer { merged.ended(needed.exercise.name) }
            let rerunStarted = Date()
            return Result { (try rerun(needed.exercise, tests: needed.left, runner: own, after: needed.ended), Date().timeIntervalSince(rerunStarted)) }
        }
        for (needed, outcome) in zip(rerunsNeeded, reruns) {
            var run = needed.run
            guard let outcome else { outcomes[needed.exercise.name] = (run, needed.share); continue }  // interrupted first
            let (rerun, seconds) = try outcome.get()
            run.stream.merge(rerun.stream)
            run.termination = rerun.termination
            run.sanitizerText += rerun.sanitizerText
            run.missingCanaries.formUnion(rerun.missingCanaries)
            run.outputTail = rerun.outputTail
            outcomes[needed.exercise.name] = (run, needed.share + seconds)
        }
        if mode.sanitize { try runAloneWhereBaseNamesAreShared(&outcomes, exercises: exercises, runner: runner) }
        return outcomes
    }

    /// Runs again the checks of one exercise that the shared run, ended by `ending`, left without a
    /// result. When that run crashed or exited, the exercise's own checks run first by themselves,
    /// in parallel as they ran there: when another exercise's check took the shared run down,
    /// that is all they need (a suite whose checks each wait for something takes seconds that
    /// way, not the sum of their waits). Only when this run ends abnormally too, or when the
    /// shared run hung or flooded its output (which another such run would only repeat), do they
    /// run one at a time, to know which check to blame.
    func rerun(_ exercise: Rubric.Exercise, tests: [DeclaredTest], runner: SuiteRunner, after ending: Termination) throws -> SuiteRun {
        switch ending {
        case .exitedEarly, .signalled, .exited:
            let filter = tests.isEmpty ? SuiteRunner.filter(suitesOf: [exercise.name]) : SuiteRunner.filter(selecting: tests)
            let own = try runner.run(name: exercise.name, filter: filter, target: "\(exercise.name)Tests", parallel: true, deadline: deadline(exercise))
            if (own.termination.isNormal && own.stream.runEnded && own.stream.withoutResult.isEmpty) || own.termination == .interrupted {
                return own
            }
        default:
            break
        }
        return try runBlamingOneAtATime(exercise, tests: tests, runner: runner)
    }

    /// Runs `tests` of one exercise one at a time. When a check crashes the process, hangs it,
    /// exits it or floods its output, the run goes on without that check, so the others still
    /// count. The termination returned is the first abnormal one (it names the check to blame).
    func runBlamingOneAtATime(_ exercise: Rubric.Exercise, tests: [DeclaredTest], runner: SuiteRunner) throws -> SuiteRun {
        let filter = tests.isEmpty ? SuiteRunner.filter(suitesOf: [exercise.name]) : SuiteRunner.filter(selecting: tests)
        var merged: SuiteRun?
        var firstAbnormal: Termination?
        var skipped: [String] = []
        let started = Date()
        while true {
            let run = try runner.run(name: exercise.name, filter: filter, target: "\(exercise.name)Tests", skipping: skipped, parallel: false, deadline: deadline(exercise))
            if merged == nil { merged = run } else {
                merged?.stream.merge(run.stream)
                merged?.sanitizerText += run.sanitizerText
                merged?.missingCanaries.formUnion(run.missingCanaries)
                merged?.outputTail = run.outputTail
            }
            let normal = run.termination.isNormal && run.stream.runEnded
            if !normal && firstAbnormal == nil { firstAbnormal = run.termination }
            let blamed = run.stream.unfinished.map(\.id).filter { !skipped.contains($0) }
            // Stop when the run was normal, nothing new can be blamed, or reruns have taken as
            // long as two deadlines.
            if normal || blamed.isEmpty || run.termination == .interrupted || Date().timeIntervalSince(started) > 2 * deadline(exercise) {
                merged?.termination = firstAbnormal ?? run.termination
                return merged ?? run
            }
            skipped += blamed
        }
    }
}

extension Termination {
    /// The test binary's own endings: 0 (all passed), 1 (some failed), or stopped by the grader
    /// after its run ended. Anything else is a crash, a hang, an early exit or too much output.
    var isNormal: Bool {
        switch self {
        case .exited(0), .exited(1), .stoppedAfterWork: true
        default: false
        }
    }
}
