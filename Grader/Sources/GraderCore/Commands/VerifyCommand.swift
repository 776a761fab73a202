import Foundation

/// `grader verify`, the maintainer check that CI runs: every solution passes every check, every
/// untouched stub scores zero without hanging or crashing, the wrong implementations in
/// `Grader/Variants/` compile and earn no more than their caps (an early exit earns nothing), the
/// rubric matches the suites and Package.swift, CHECKLIST.md and the integrity manifest are
/// current, and the tests of the test support and of the grader pass. Prints one line per step
/// (with `--suite-times`, each suite's time on its solution and on its stub too), and a closing
/// "verify: N passed, N failed" line.
struct VerifyCommand {
    var layout: KataLayout
    var rubric: Rubric
    /// SwiftPM's build system for every build and run (`--build-system`).
    var buildSystem: BuildSystem = .native
    /// `--suite-times`: each suite alone on its solution and its stub, timed (about half a minute).
    var suiteTimes = false
    let style = Style.detect()

    /// What a suite should take on its stub or its solution (issue budgets are 3 to 5 s).
    static let suiteBudgetSeconds = 5.0

    func run() throws -> Int32 {
        var passed = 0
        var failed = 0
        var phasesShown = 0
        func step(_ name: String, _ problems: [String], summarized: Bool = true) {
            defer {
                // Where the step's time went (builds, runs, the systematic checks, ThreadSanitizer).
                if summarized {
                    let phases = PhaseTimings.shared.file.phases
                    let summary = Self.summary(of: phases[min(phasesShown, phases.count)...])
                    if !summary.isEmpty { say("    " + style.dim(summary)) }
                    phasesShown = phases.count
                }
            }
            if problems.isEmpty {
                passed += 1
                say(style.green("✔ ") + name)
            } else {
                failed += 1
                say(style.red("✘ ") + name)
                for problem in problems { say("    " + problem) }
            }
        }
        let started = Date()
        step("rubric lists the exercises of Package.swift, in order", packageProblems())
        step("every exercise has README.md and at least 3 hints in HINTS.md", documentProblems())
        step("every exercise and check has a Simplified Chinese title, translated from its English one as it is now",
             TranslationCheck(layout: layout, rubric: rubric).titleProblems())
        step("every learner document has a Simplified Chinese twin made from it as it is now: same headings, code and links (swift run grader translations)",
             TranslationCheck(layout: layout, rubric: rubric).documentProblems())
        step("every message of the suites has a Chinese translation with the same placeholders in \(MessageCatalog.path), and nothing stale (swift run grader translations)",
             TranslationCheck(layout: layout, rubric: rubric).messageProblems())
        step("CHECKLIST.md and CHECKLIST.zh-Hans.md are current (swift run grader checklist --write)", checklistProblems())
        step("Grader/integrity.json is current (swift run grader manifest --write)", manifestProblems())
        step("builds on a Mac (Xcode 26, Swift 6.2 and 6.3): platforms, tools version, no Linux-only symbol outside a guard",
             PortabilityCheck(root: layout.root).problems())

        let progress = TerminalProgress(style: style)
        let solutionsMode = BuildMode(solutions: true, buildSystem: buildSystem)
        PhaseTimings.shared.restart()
        phasesShown = 0
        let solutionsStarted = Date()
        let solutions = try timed { try session(solutionsMode, progress).grade(rubric.exercises) }
        let solutionsSeconds = Date().timeIntervalSince(solutionsStarted)
        let solutionsPhases = PhaseTimings.shared.file.phases
        progress.clear()
        // The systematic checks and the race check are checks like the others: the solutions must
        // pass them too, and the systematic checks must have given a verdict on every one.
        var modelProblems: [String] = []
        let orderChecked = timed { () -> [ExerciseResult] in
            var results = solutions.value
            let verdicts = modelGate(solutionsMode, progress).apply(to: &results, judging: ModelApplicability.exercises)
            modelProblems = Self.unjudged(verdicts, among: ModelApplicability.exercises)
            return results
        }
        let raceChecked = try timed { () throws -> [ExerciseResult] in
            var results = orderChecked.value
            try raceCheck(solutionsMode, progress).apply(to: &results)
            return results
        }
        progress.clear()
        step("every solution passes every check (\(solutions.seconds) s), the systematic checks (\(orderChecked.seconds) s) and the race check (\(raceChecked.seconds) s) included",
             solutionProblems(raceChecked.value) + modelProblems)
        step("suites declare exactly the rubric's checks, with the titles CHECKLIST.md shows", declarationProblems(solutions.value))

        let stubs = try timed { try session(stubsMode, progress).grade(rubric.exercises) }
        progress.clear()
        step("every untouched stub scores zero, in progress, no hang, no crash (\(stubs.seconds) s)", stubProblems(stubs.value))
        var suitesAlone: Double?
        if suiteTimes {
            let timedAlone = try timed { try printSuiteTimes() }
            say("      (\(timedAlone.seconds) s)")
            suitesAlone = timedAlone.value
        }
        printLoopShortForm(grade: solutionsPhases, gradeSeconds: solutionsSeconds, suitesAlone: suitesAlone)
        #if os(Linux)
        // On a Mac the compiler itself rejects these; here only the typed syntax tree shows them.
        // Its compilers keep the cores busy for about half a minute: it runs beside the second
        // Misbehaving run, whose children mostly wait, and its line comes after that run's.
        // It reads only the solutions' build, which nothing after it rebuilds before it ends.
        let (courseLayout, courseBuildSystem, names) = (layout, buildSystem, rubric.exercises.map(\.name))
        let asyncCheck = BackgroundStep { try AsyncContextCheck.learnerAndSolutionBuilds(layout: courseLayout, buildSystem: courseBuildSystem, exercises: names) }
        #endif

        let (catalog, catalogProblems) = VariantCatalog.load(layout: layout, rubric: rubric)
        step("every exercise has a Misbehaving variant, and every other variant a cap", catalogProblems)
        // Misbehaving: every exercise's stub with a tripwire, under each misbehaviour.
        let misbehavingCaps = catalog.caps[VariantCatalog.misbehaving] ?? [:]
        for (index, misbehaviour) in VariantCatalog.misbehaviours.enumerated() {
            // The first run builds the variant; the later ones reuse that build.
            #if os(Linux)
            if index > 0 { asyncCheck.start() }
            #endif
            let mode = BuildMode(variant: VariantCatalog.misbehaving, buildSystem: buildSystem)
            var grading = session(mode, progress)
            grading.testEnvironment = ["KATA_MISBEHAVE": misbehaviour]
            let graded = try timed { try grading.grade(rubric.exercises.filter { misbehavingCaps[$0.name] != nil }) }
            progress.clear()
            step("variant \(VariantCatalog.misbehaving) (\(misbehaviour.replacingOccurrences(of: "-", with: " "))) earns no more than its cap (\(graded.seconds) s)",
                 capProblems(graded.value, caps: misbehavingCaps))
        }
        #if os(Linux)
        let asyncChecked = try asyncCheck.wait()
        step("no blocking call that Apple marks noasync in async code (\(asyncChecked.seconds) s, beside the Misbehaving run)", asyncChecked.value)
        #endif
        // The others in rounds: each exercise's k-th variant in one build and one run.
        let overlapping = roundsOverlap
        try gradeRounds(catalog, progress: progress) { steps in
            progress.clear()
            for outcome in steps { step(outcome.name, outcome.problems, summarized: !overlapping) }
        }
        if overlapping {
            // Rounds overlap: their phases are summed together, not per round.
            let summary = Self.summary(of: PhaseTimings.shared.file.phases[min(phasesShown, PhaseTimings.shared.file.phases.count)...])
            if !summary.isEmpty { say("    " + style.dim("the rounds, each built while the one before it ran its checks: " + summary)) }
            phasesShown = PhaseTimings.shared.file.phases.count
        }
        let supportTests = try timed { try supportTestProblems() }
        step("KataTestSupport, grader, benchmark and QueueOrdering self-tests pass (\(supportTests.seconds) s)", supportTests.value)

        say("Took \(String(format: "%.1f", Date().timeIntervalSince(started))) s; the graded builds and runs in it: \(Self.summary(of: PhaseTimings.shared.file.phases[...])).")
        say("verify: \(passed) passed, \(failed) failed")
        return failed == 0 ? 0 : 1
    }

    /// Writes a line at once (not through print's buffer), so a CI log shows each step as it ends.
    func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// The untouched stubs, as a learner's grade builds them, in the variants' folder: the
    /// `Misbehaving` build that follows changes only the exercises there, and the learner's
    /// `.build` keeps its own modules.
    var stubsMode: BuildMode {
        var mode = BuildMode(buildSystem: buildSystem)
        mode.inVariantsFolder = true
        return mode
    }

    func session(_ mode: BuildMode, _ progress: any GradingProgress) -> GradingSession {
        GradingSession(layout: layout, rubric: rubric, mode: mode, progress: progress)
    }

    /// The race check as verify runs it: ThreadSanitizer's report folders have a space, a comma,
    /// a colon and Chinese characters in their names, so every run proves its options survive
    /// such a path.
    func raceCheck(_ mode: BuildMode, _ progress: any GradingProgress) -> RaceCheck {
        var check = RaceCheck(layout: layout, rubric: rubric, mode: mode, progress: progress)
        check.awkwardReportPath = true
        return check
    }

    /// The systematic checks as verify runs them: never from a remembered verdict.
    func modelGate(_ mode: BuildMode, _ progress: any GradingProgress) -> ModelGate {
        var gate = ModelGate(layout: layout, rubric: rubric, mode: mode, progress: progress)
        gate.remembers = false
        return gate
    }

    /// The exercises whose systematic checks gave no verdict (all explored, every one held or broke).
    static func unjudged(_ verdicts: [String: ModelVerdict], among names: [String]) -> [String] {
        names.compactMap { name in
            switch verdicts[name] {
            case .report(let report)? where report.checks.allSatisfy({ $0.verdict == "pass" }): return nil
            case .report(let report)?:
                let other = report.checks.filter { $0.verdict != "pass" }.map { "\($0.name): \($0.verdict)" }
                return "\(name): systematic checks \(other.joined(separator: ", "))"
            case .notApplicable(let uses)?: return "\(name): the systematic checks are not applicable: \(uses.map(\.what).joined(separator: ", "))"
            case .cannotRun(let why)?: return "\(name): the systematic checks could not run: \(why)"
            case nil: return "\(name): the systematic checks did not run"
            }
        }
    }

    /// How verify keeps ThreadSanitizer from starting. Linux: a limited address space, in which
    /// the runtime cannot reserve its shadow memory ("ThreadSanitizer setrlimit() failed",
    /// measured here with `ulimit -v 16000000`). Apple platforms do not enforce that limit: there
    /// an option the sanitizer's parser rejects at start-up (compiler-rt
    /// `sanitizer_flag_parser.cpp`, "Invalid value for int option").
    static var sanitizerFault: (prefix: [String], description: String) {
        #if os(Linux)
        (["/bin/sh", "-c", "ulimit -v 16000000 && exec \"$@\"", "sh"], "ulimit -v 16000000")
        #else
        (["/usr/bin/env", "TSAN_OPTIONS=exitcode=not-a-number"], "TSAN_OPTIONS=exitcode=not-a-number")
        #endif
    }

    /// Grades a race-only variant with ThreadSanitizer kept from starting, from its round's
    /// results (`graded`): its race check must say that it could not run, earn nothing, and leave
    /// the exercise incomplete.
    func raceCheckWithoutSanitizer(_ mode: BuildMode, exercise name: String, graded: [ExerciseResult], _ progress: any GradingProgress) throws -> [String] {
        guard var result = graded.first(where: { $0.name == name }) else { return ["\(name): no result in its round"] }
        // Its other checks passed, so the round's race check ran; the fault asks for another run.
        result.status = .lookingForRaces
        result.raceVerdict = nil
        var results = [result]
        var check = raceCheck(mode, progress)
        check.commandPrefix = Self.sanitizerFault.prefix
        check.remembers = false
        try check.apply(to: &results)
        guard let result = results.first else { return ["\(name): no result"] }
        guard case .raceCheckCouldNotRun = result.status else {
            return ["\(name) \(mode.sourceFolder(of: name)): \(result.status.keyword), expected race_check_could_not_run"]
        }
        let race = result.checks.first { $0.test == Rubric.raceCheckTest }
        return race?.earned == 0 && !result.isComplete ? [] : ["\(name) \(mode.sourceFolder(of: name)): the race check earned \(race?.earned ?? -1) points"]
    }

    /// The phases' seconds summed by name, the longest first: "build: compiling 84.5 s, …".
    static func summary(of phases: ArraySlice<PhaseTimings.Phase>) -> String {
        var totals: [String: Double] = [:]
        for phase in phases { totals[phase.name, default: 0] += phase.seconds }
        return totals.filter { $0.value >= 0.05 }.sorted { $0.value > $1.value }
            .map { "\($0.key) \(String(format: "%.1f", $0.value)) s" }.joined(separator: ", ")
    }

    func timed<T>(_ body: () throws -> T) rethrows -> (value: T, seconds: String) {
        let start = Date()
        let value = try body()
        return (value, String(format: "%.1f", Date().timeIntervalSince(start)))
    }

    /// Each suite's time on its solution and on its stub, each suite run alone as
    /// `swift test --filter <Name>Tests` runs it (in parallel), so that a slow suite shows: a
    /// learner runs it after every save, and is wrong most of the time. Not a pass or fail: the
    /// figure depends on the machine.
    @discardableResult
    func printSuiteTimes() throws -> Double {
        say("    each suite alone, in parallel mode (budget: a few seconds; a stub about a second):")
        let directory = layout.stateDirectory.appendingPathComponent("runs/times")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var solutionsAlone = 0.0
        for exercise in rubric.exercises {
            let times = [BuildMode(solutions: true, buildSystem: buildSystem), stubsMode].map { mode -> Double in
                SuiteAlone.seconds(exercise, mode: mode, layout: layout, directory: directory) ?? 0
            }
            solutionsAlone += times[0]
            let line = "      \(exercise.name.padding(toLength: 22, withPad: " ", startingAt: 0)) solution \(String(format: "%5.1f", times[0])) s   stub \(String(format: "%5.1f", times[1])) s"
            say(times.max() ?? 0 > Self.suiteBudgetSeconds ? style.yellow(line + "   (over \(Int(Self.suiteBudgetSeconds)) s)") : line)
        }
        return solutionsAlone
    }

    /// The loop benchmark's short form, from what verify measured anyway: the solutions' grade
    /// split into its phases (`PhaseTimings`), beside the bare suites alone on their solutions,
    /// one after another. Informational: no pass or fail on time.
    func printLoopShortForm(grade: [PhaseTimings.Phase], gradeSeconds: Double, suitesAlone: Double?) {
        let phases = grade.map { "\($0.name) \(String(format: "%.1f", $0.seconds)) s" }.joined(separator: ", ")
        let alone = suitesAlone.map { "the suites alone on their solutions, one after another: \(String(format: "%.1f", $0)) s" }
            ?? "each suite alone on its solution and its stub: swift run grader verify --suite-times"
        say("    the solutions' grade (its stress checks): \(String(format: "%.1f", gradeSeconds)) s (\(phases)); \(alone)")
        say("    (the whole loop, measured in a temporary clone: swift run grader loop-bench; MAINTAINERS.md)")
    }

    func packageProblems() -> [String] {
        guard let manifest = try? String(contentsOf: layout.root.appendingPathComponent("Package.swift"), encoding: .utf8),
              let start = manifest.range(of: "let allExercises = ["),
              let end = manifest[start.upperBound...].range(of: "]") else {
            return ["cannot find `let allExercises = [ … ]` in Package.swift"]
        }
        let names = manifest[start.upperBound..<end.lowerBound]
            .split(separator: "\n").compactMap { Checklist.firstStringLiteral(in: String($0)) }
        let rubricNames = rubric.exercises.map(\.name)
        var problems = names == rubricNames ? [] : ["Package.swift has \(names), the rubric has \(rubricNames)"]
        for exercise in rubric.exercises {
            for check in exercise.checks {
                for required in check.requires ?? [] where !exercise.checks.contains(where: { $0.test == required }) {
                    problems.append("\(exercise.name): \(check.test) requires \(required), which the rubric does not list")
                }
            }
            if exercise.checks.filter(\.isRaceCheck).count != 1 || exercise.checks.last?.isRaceCheck != true || exercise.raceCheck?.points ?? 0 <= 0 {
                problems.append("\(exercise.name): the rubric must end with the race check, \"\(Rubric.raceCheckTest)\", once, with points")
            }
        }
        return problems
    }

    func documentProblems() -> [String] {
        rubric.exercises.flatMap { exercise -> [String] in
            var problems: [String] = []
            let readme = layout.exerciseDirectory(exercise.name).appendingPathComponent("README.md")
            if ((try? String(contentsOf: readme, encoding: .utf8)) ?? "").count < 200 {
                problems.append("\(layout.relative(readme)) is missing or nearly empty")
            }
            let hints = Hints.parse((try? String(contentsOf: layout.hintsFile(exercise.name), encoding: .utf8)) ?? "")
            if hints.count < 3 { problems.append("\(layout.relative(layout.hintsFile(exercise.name))) has \(hints.count) hints") }
            return problems
        }
    }

    func checklistProblems() -> [String] {
        Language.allCases.compactMap { language in
            let file = layout.checklistFile(in: language)
            let current = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            return current == Checklist.render(rubric: rubric, layout: layout, language: language)
                ? nil : "\(layout.relative(file)) differs from what the rubric and suites give"
        }
    }

    func manifestProblems() -> [String] {
        guard let committed = IntegrityManifest.load(layout: layout) else { return ["Grader/integrity.json is missing"] }
        let current = IntegrityManifest.compute(layout: layout, rubric: rubric)
        var problems = committed.modifiedProtectedFiles(comparedWith: current).map { "protected file changed: \($0)" }
        let stubPaths = Set(committed.stubs.keys).union(current.stubs.keys)
        problems += stubPaths.filter { committed.stubs[$0] != current.stubs[$0] }.sorted().map { "stub changed: \($0)" }
        if committed.solutions != current.solutions { problems.append("the solutions' blob ids changed") }
        return problems
    }

    func solutionProblems(_ results: [ExerciseResult]) -> [String] {
        results.flatMap { result -> [String] in
            guard !result.isComplete || result.points != result.totalPoints else { return [] }
            let failing = result.checks.filter { !$0.passed }.map { "\($0.test): \($0.message ?? "")" }
            return ["\(result.name): \(result.status.keyword), \(result.points)/\(result.totalPoints)"] + failing.prefix(5).map { "  " + $0 }
                + (JSONReport.describe(result.status).0.map { ["  " + $0] } ?? [])
        }
    }

    /// The rubric's tests and the suites' tests are the same set; the titles parsed for
    /// CHECKLIST.md are the display names Swift Testing reports.
    func declarationProblems(_ results: [ExerciseResult]) -> [String] {
        rubric.exercises.flatMap { exercise -> [String] in
            let declared = results.first { $0.name == exercise.name }?.declared ?? []
            var problems: [String] = []
            let rubricNames = exercise.suiteChecks.map(\.test)
            if Set(rubricNames).count != rubricNames.count { problems.append("\(exercise.name): the rubric names a test twice") }
            let declaredNames = declared.map(\.name)
            if Set(declaredNames).count != declaredNames.count { problems.append("\(exercise.name): two tests share a function name") }
            for name in Set(declaredNames).subtracting(rubricNames).sorted() { problems.append("\(exercise.name): test \(name)() has no points in the rubric") }
            for name in Set(rubricNames).subtracting(declaredNames).sorted() { problems.append("\(exercise.name): the rubric names \(name)(), which the suite does not declare") }
            let titles = Checklist.titles(layout: layout, exercise: exercise.name)
            for test in declared where titles[test.name] != test.displayName {
                problems.append("\(exercise.name): \(test.name)() is titled \"\(test.displayName)\" but CHECKLIST.md would say \"\(titles[test.name] ?? "-")\"")
            }
            // Within one file, the rubric keeps the order in which the checks are written.
            let byFile = Dictionary(grouping: declared, by: \.file)
            for (file, tests) in byFile where problems.isEmpty {
                let written = tests.sorted { $0.line < $1.line }.map(\.name)
                let listed = rubricNames.filter(written.contains)
                if written != listed { problems.append("\(exercise.name): the rubric lists \(listed) but \(file) declares them in the order \(written)") }
            }
            return problems
        }
    }

    func stubProblems(_ results: [ExerciseResult]) -> [String] {
        results.flatMap { result -> [String] in
            var problems: [String] = []
            if case .inProgress = result.status {} else {
                problems.append("\(result.name): \(result.status.keyword) — \(JSONReport.describe(result.status).0 ?? "")")
            }
            for check in result.checks where check.passed {
                problems.append("\(result.name): \(check.test)() passes on the untouched stub")
            }
            return problems
        }
    }

    /// A variant earns no more than its cap and is never complete; a race-only variant's race is
    /// reported in its own files; and a race check that could not run is a fault of the tooling.
    func capProblems(_ results: [ExerciseResult], caps: [String: VariantCatalog.Cap], variants: [String: String] = [:]) -> [String] {
        results.flatMap { result -> [String] in
            guard let cap = caps[result.name] else { return [] }
            return capProblems(result, cap: cap).map { problem in variants[result.name].map { "(\($0)) " + problem } ?? problem }
        }
    }

    func capProblems(_ result: ExerciseResult, cap: VariantCatalog.Cap) -> [String] {
        var problems: [String] = []
        // A variant that does not compile earns nothing without running a check: its cap would
        // hold whatever the suite does, so it proves nothing.
        if case .doesNotCompile(let error) = result.status {
            problems.append("\(result.name): does not compile, so no check ran on it: \(error.file):\(error.line): \(error.message)")
        }
        if result.points > cap.maxPoints || result.isComplete {
            let earned = result.checks.filter { $0.earned > 0 }.map(\.test).joined(separator: ", ")
            problems.append("\(result.name): \(result.points) points (cap \(cap.maxPoints)), \(result.status.keyword); earned by: \(earned)")
        }
        if case .raceCheckCouldNotRun(let reason) = result.status { problems.append("\(result.name): the race check could not run: \(reason)") }
        if cap.raceOnly == true {
            if case .dataRace(let finding) = result.status, finding.file?.hasPrefix("Grader/Variants/\(result.name)/") == true {} else {
                problems.append("\(result.name): its only fault is a data race, but it reads \(result.status.keyword)")
            }
        }
        return problems
    }

    func supportTestProblems() throws -> [String] {
        let directory = layout.stateDirectory.appendingPathComponent("runs")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // The maintainer's tests are built with the solutions (Package.swift, `maintainer`).
        let mode = BuildMode(solutions: true, buildSystem: buildSystem)
        let products = try TestProducts.of(mode, layout: layout)
        let targets = ["KataTestSupportTests", "GraderCoreTests", "BenchmarkTests", "QueueOrderingSelfTests"]
        // One run of the package's test product, or one per target's own product (Swift Build).
        let runs = products.perTarget ? targets.map { [$0] } : [targets]
        var events = EventStream()
        var problems: [String] = []
        for (index, group) in runs.enumerated() {
            let name = runs.count == 1 ? "support" : "support-\(index)"
            let stream = directory.appendingPathComponent("\(name).jsonl")
            let log = directory.appendingPathComponent("\(name).log")
            try? FileManager.default.removeItem(at: stream)
            let arguments = products.command(target: group[0])
                + BuildMode.testOptions(filter: "^(" + group.joined(separator: "|") + ")\\.", eventStream: stream.path)
            let termination = try ChildProcess.run(arguments, in: layout.root, environment: mode.environment(excluding: []), outputFile: log, deadline: 300)
            events.merge(EventStream(contentsOf: stream))
            if termination != .exited(0) { problems.append("the support and grader tests ended with \(termination); see \(layout.relative(log))") }
        }
        if events.declared.isEmpty { problems.append("no support or grader tests ran") }
        // A test gated on KATA_MAINTAINER=1 (one that builds for minutes) is skipped here by design.
        for test in events.declared where events.runs[test.id]?.passed != true && events.runs[test.id]?.skipped != true {
            problems.append("\(test.id): \(events.runs[test.id]?.issues.first?.message ?? "did not finish")")
        }
        return problems
    }
}
