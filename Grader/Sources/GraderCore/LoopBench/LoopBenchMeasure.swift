import Foundation

/// The loop benchmark's measurements, one method per group of rows, in a clone of the course.
struct LoopBenchMeasure {
    var workspace: LoopBenchWorkspace
    var rubric: Rubric
    var runs: Int
    var note: (String) -> Void
    /// The build modes already built in the warm clone.
    private var built: Set<Bool> = []

    init(workspace: LoopBenchWorkspace, rubric: Rubric, runs: Int, note: @escaping (String) -> Void) {
        self.workspace = workspace
        self.rubric = rubric
        self.runs = runs
        self.note = note
    }

    static let restPhase = "the rest (the grader's other steps)"

    /// A grader run's phases: `swift run`'s build of the grader (split by its lines, up to its
    /// "Build of product" line) and the start of the grader, the grader's own phases, and what the
    /// grader did besides them.
    static func phases(of timed: LoopBenchWorkspace.Timed) -> [PhaseTimings.Phase] {
        guard let timings = timed.timings else { return [] }
        let own = timings.phases.reduce(0) { $0 + $1.seconds }
        let beforeGrader = max(0, timed.seconds - timings.totalSeconds)
        let lines = timed.lines.lines.map { (offset: $0.at.timeIntervalSince(timed.lines.started), text: $0.text) }
        var swiftRun: [PhaseTimings.Phase] = []
        if let end = lines.firstIndex(where: { $0.text.hasPrefix("Build of product") || $0.text.hasPrefix("Build complete") }) {
            let built = min(lines[end].offset, beforeGrader)
            let parts = SwiftPMPhases.split(Array(lines[...end]), end: built)
            swiftRun = SwiftPMPhases.Part.allCases.filter { parts[$0] ?? 0 > 0 }
                .map { PhaseTimings.Phase(name: "swift run: building the grader: \($0.rawValue)", seconds: parts[$0] ?? 0) }
            swiftRun.append(PhaseTimings.Phase(name: "swift run: starting the grader", seconds: max(0, beforeGrader - built)))
        } else {
            swiftRun = [PhaseTimings.Phase(name: "swift run: building and starting the grader", seconds: beforeGrader)]
        }
        return swiftRun + timings.phases + [PhaseTimings.Phase(name: restPhase, seconds: max(0, timings.totalSeconds - own))]
    }

    /// A grade is measured when it ran: exit 0 (every exercise complete) or 1 (not all).
    static func failure(of timed: LoopBenchWorkspace.Timed) -> String? {
        timed.termination == .exited(0) || timed.termination == .exited(1) ? nil
            : "ended with \(timed.termination); see \(timed.log.path)"
    }

    /// A fresh clone's first `swift run grader`, the cold build included: a fresh clone each run
    /// (the first one stays as the warm clone of the other rows).
    mutating func freshClones(first: KataLayout) throws -> [LoopBenchReport.Row] {
        var samples: [Double] = []
        var phases: [[PhaseTimings.Phase]] = []
        var failures: [String] = []
        for run in 1...runs {
            let clone = run == 1 ? first : try workspace.clone("clone-fresh-\(run)")
            note("a fresh clone's first grade, run \(run) of \(runs)…")
            let timed = try workspace.grader([], in: clone, name: "fresh-\(run)")
            if let failure = Self.failure(of: timed) { failures.append(failure) } else {
                samples.append(timed.seconds)
                phases.append(Self.phases(of: timed))
            }
            if run > 1 { try? FileManager.default.removeItem(at: clone.root) }
        }
        built.insert(false)
        return [LoopBenchReport.Row(id: "fresh-clone-first-grade", what: "a fresh clone's first `swift run grader` (cold build included)",
                                    samples: samples, phases: phases, failures: failures)]
    }

    /// `grader watch <exercise>`: the saves of `LoopBenchWatch`, then the stub back.
    mutating func watchSaves(in clone: KataLayout, exercise: String) throws -> [LoopBenchReport.Row] {
        // Watch builds the learner's build for the watched exercise alone, and its files change:
        // the rows after it build the whole course again first.
        built.remove(false)
        note("grader watch \(exercise): the solution in, then \(runs) round\(runs == 1 ? "" : "s") of saves…")
        let timings = workspace.folder.appendingPathComponent("watch-timings.json")
        let driver = try LoopBenchWatch(clone: clone, exercise: exercise, runs: runs, timingsFile: timings)
        let command = ["swift", "run"] + workspace.buildSystem.swiftPMArguments
            + ["grader", "watch", exercise, "--lang", "en", "--build-system", workspace.buildSystem.rawValue, "--timings", timings.path]
        let log = workspace.folder.appendingPathComponent("watch.log")
        let termination = try ChildProcess.run(command, in: clone.root, outputFile: log,
                                               limits: ChildLimits(deadline: 7_200, keptOutput: 4 << 20), lines: driver.lines) { driver.step() }
        // The untouched stub back, for the rows that grade the stubs.
        _ = try? workspace.run(["git", "checkout", "--", "Exercises"], in: clone, name: "restore", deadline: 60)
        _ = try? workspace.run(["git", "clean", "-fdq", "Exercises"], in: clone, name: "clean", deadline: 60)
        var general: [String] = []
        if let failure = driver.failure { general.append(failure + "; see \(log.path)") }
        if termination != .stoppedAfterWork && driver.failure == nil { general.append("watch ended with \(termination); see \(log.path)") }

        func rows(_ kind: LoopBenchWatch.Save.Kind, id: String, points: String, verdict: String?) -> [LoopBenchReport.Row] {
            let saves = driver.measured.filter { $0.kind == kind }
            let failures = general + saves.compactMap(\.failure)
            let ok = saves.filter { $0.failure == nil }
            func remainder(_ phases: [PhaseTimings.Phase], _ seconds: Double) -> [PhaseTimings.Phase] {
                phases + [PhaseTimings.Phase(name: "watch: noticing the save, and the rest", seconds: max(0, seconds - phases.reduce(0) { $0 + $1.seconds }))]
            }
            let beforePoints: (PhaseTimings.Phase) -> Bool = { !$0.name.hasPrefix("ThreadSanitizer") && !$0.name.hasPrefix("systematic") }
            var result = [LoopBenchReport.Row(
                id: "watch-\(id)-points", what: points, samples: ok.compactMap(\.toPoints),
                phases: ok.map { remainder($0.phases.filter(beforePoints), $0.toPoints ?? 0) }, failures: failures)]
            if let verdict {
                let judged = ok.filter { $0.toVerdict != nil }
                result.append(LoopBenchReport.Row(
                    id: "watch-\(id)-verdict", what: verdict, samples: judged.compactMap(\.toVerdict),
                    phases: judged.map { remainder($0.phases, $0.toVerdict ?? 0) }, failures: failures))
            }
            return result
        }
        return rows(.bodyOnly, id: "body-only", points: "`grader watch`: a save that changes only a function body → its points on screen",
                    verdict: "… → the race check's verdict on the same screen")
            + rows(.interface, id: "interface", points: "`grader watch`: a save that adds a stored property (the interface changes) → its points",
                   verdict: "… → the race check's verdict")
            + rows(.compileError, id: "compile-error", points: "`grader watch`: a save with a compile error → the error on screen", verdict: nil)
    }

    /// Builds the mode once, untimed: the learner's with a grade of the stubs (which also records
    /// the grader's build stamp, so the timed grades skip `swift build` as a learner's warm grade
    /// does), the solutions' as the grader builds it (`BuildMode.buildArguments`), without the
    /// systematic checks, which only the solutions' grade needs.
    mutating func ensureBuilt(solutions: Bool, in clone: KataLayout) throws {
        guard !built.contains(solutions) else { return }
        note("the \(solutions ? "solutions'" : "learner's") build (not timed)…")
        if solutions {
            let mode = BuildMode(solutions: true, buildSystem: workspace.buildSystem)
            let timed = try workspace.run(mode.buildArguments, in: clone, name: "build-solutions",
                                          environment: mode.environment(excluding: []), deadline: 3_600)
            guard timed.termination == .exited(0) else { throw GraderError.cannotRun("the \(mode.scratchPath) build ended with \(timed.termination); see \(timed.log.path)") }
        } else {
            let timed = try workspace.grader(["--no-race-check"], in: clone, name: "build-learner")
            if let failure = Self.failure(of: timed) { throw GraderError.cannotRun("the stubs' untimed grade \(failure)") }
        }
        built.insert(solutions)
    }

    /// A warm `swift run grader` on the untouched stubs.
    mutating func stubsGrade(in clone: KataLayout) throws -> [LoopBenchReport.Row] {
        try ensureBuilt(solutions: false, in: clone)
        return [try graded([], in: clone, id: "stubs-grade", what: "`swift run grader` on the untouched stubs (warm)")]
    }

    /// A warm `swift run grader --solutions --no-race-check`, and the bare test binary on the same suites.
    mutating func solutionsGrade(in clone: KataLayout) throws -> [LoopBenchReport.Row] {
        try ensureBuilt(solutions: true, in: clone)
        // Once untimed: the systematic checks' first builds (`.build-model`) and verdicts.
        note("the solutions' first grade (not timed)…")
        let first = try workspace.grader(["--solutions", "--no-race-check"], in: clone, name: "solutions-first")
        if let failure = Self.failure(of: first) { throw GraderError.cannotRun("the solutions' first grade \(failure)") }
        let grade = try graded(["--solutions", "--no-race-check"], in: clone, id: "solutions-grade",
                               what: "`swift run grader --solutions --no-race-check` (warm)")
        let mode = BuildMode(solutions: true, buildSystem: workspace.buildSystem)
        let products = try TestProducts.of(mode, layout: clone)
        let filter = SuiteRunner.filter(suitesOf: rubric.exercises.map(\.name))
        let commands = products.perTarget ? rubric.exercises.map { products.command(target: "\($0.name)Tests") + ["--filter", filter] }
            : [products.command(target: "") + ["--filter", filter]]
        var samples: [Double] = []
        var failures: [String] = []
        for run in 1...runs {
            note("the bare suites on the solutions, run \(run) of \(runs)…")
            var seconds = 0.0
            var failed: String?
            for (index, command) in commands.enumerated() {
                let timed = try workspace.run(command, in: clone, name: "bare-\(run)-\(index)", deadline: 600)
                seconds += timed.seconds
                if timed.termination != .exited(0) { failed = "the test binary ended with \(timed.termination); see \(timed.log.path)" }
            }
            if let failed { failures.append(failed) } else { samples.append(seconds) }
        }
        return [grade, LoopBenchReport.Row(id: "bare-suites-solutions", what: "the bare test binary on the same suites (no grader)",
                                           samples: samples, failures: failures)]
    }

    func graded(_ arguments: [String], in clone: KataLayout, id: String, what: String) throws -> LoopBenchReport.Row {
        var samples: [Double] = []
        var phases: [[PhaseTimings.Phase]] = []
        var failures: [String] = []
        for run in 1...runs {
            note("\(id), run \(run) of \(runs)…")
            let timed = try workspace.grader(arguments, in: clone, name: "\(id)-\(run)")
            if let failure = Self.failure(of: timed) { failures.append(failure) } else {
                samples.append(timed.seconds)
                phases.append(Self.phases(of: timed))
            }
        }
        return LoopBenchReport.Row(id: id, what: what, samples: samples, phases: phases, failures: failures)
    }

    /// Each suite alone (`SuiteAlone`), on its stub and on its solution.
    mutating func suitesAlone(_ exercises: [Rubric.Exercise], in clone: KataLayout) throws -> [LoopBenchReport.Row] {
        try ensureBuilt(solutions: false, in: clone)
        try ensureBuilt(solutions: true, in: clone)
        let directory = workspace.folder.appendingPathComponent("suites")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var rows: [LoopBenchReport.Row] = []
        for exercise in exercises {
            for solutions in [false, true] {
                let mode = BuildMode(solutions: solutions, buildSystem: workspace.buildSystem)
                note("\(exercise.name) alone on its \(solutions ? "solution" : "stub")…")
                var samples: [Double] = []
                var failures: [String] = []
                for _ in 1...runs {
                    if let seconds = SuiteAlone.seconds(exercise, mode: mode, layout: clone, directory: directory) { samples.append(seconds) } else {
                        failures.append("its test binary could not be found or started")
                    }
                }
                rows.append(LoopBenchReport.Row(
                    id: "alone-\(exercise.name)-\(solutions ? "solution" : "stub")",
                    what: "\(exercise.name)'s suite alone on its \(solutions ? "solution" : "stub")", samples: samples, failures: failures))
            }
        }
        return rows
    }
}
