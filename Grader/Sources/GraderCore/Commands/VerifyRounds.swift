import Foundation

/// Verify's variant rounds: round k builds each exercise from its k-th wrong implementation in
/// one build, runs the suites, then the systematic checks and the race check, as a grade does.
///
/// Where the suites run from one test binary that links every module (the native build system
/// on Linux: `TestProducts`), the rounds overlap: while one round's suites run (wrong code mostly
/// waits out deadlines) and its systematic and ThreadSanitizer builds run in their own folders,
/// the next round builds in the variants' folder. The running round runs a copy of its binary,
/// which the next build replaces. Elsewhere (on macOS only `swift test` runs the tests, from the
/// build folder; Swift Build makes a product per target) the rounds run one after another.
extension VerifyCommand {
    /// A round built and ready to run.
    struct BuiltRound: Sendable {
        var index: Int
        var mode: BuildMode
        var exercises: [Rubric.Exercise]
        var broken: [String: CompileError]
        var excluded: [String]
        /// A copy of the round's test binary, when the next round builds while this one runs.
        var products: TestProducts?
        var buildSeconds: Double
    }

    /// A line of verify's report: what was proven, and what went wrong.
    struct StepOutcome: Sendable {
        var name: String
        var problems: [String]
    }

    /// Whether the next round may build while this one runs (see above).
    var roundsOverlap: Bool {
        #if os(Linux)
        !buildSystem.hasProductPerTestTarget
        #else
        false
        #endif
    }

    /// Every round, in order; `report` prints each round's lines as soon as its checks ended.
    func gradeRounds(_ catalog: VariantCatalog, progress: any GradingProgress, report: ([StepOutcome]) -> Void) throws {
        let rounds = catalog.rounds
        guard !rounds.isEmpty else { return }
        guard roundsOverlap else {
            for index in rounds.indices {
                let built = try buildRound(index, rounds[index], progress: progress, copyingProduct: false)
                report(try judgeRound(built, catalog: catalog, progress: progress))
            }
            return
        }
        var built = try buildRound(0, rounds[0], progress: progress, copyingProduct: true)
        for index in rounds.indices {
            let current = built
            let judging = BackgroundStep { [self] in try judgeRound(current, catalog: catalog, progress: SilentProgress()) }
            judging.start()
            if index + 1 < rounds.count {
                built = try buildRound(index + 1, rounds[index + 1], progress: progress, copyingProduct: true)
            }
            report(try judging.wait().value)
        }
    }

    /// Builds round `index` in the variants' folder; with `copyingProduct`, copies its test binary
    /// out of the folder, for the next round's build to leave alone.
    func buildRound(_ index: Int, _ round: [String: String], progress: any GradingProgress, copyingProduct: Bool) throws -> BuiltRound {
        var mode = BuildMode(variant: "round-\(index + 1)", buildSystem: buildSystem)
        mode.variantsByExercise = round
        let work = session(mode, progress).workDirectory
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let started = Date()
        let unselected = rubric.exercises.map(\.name).filter { round[$0] == nil }
        let builder = Builder(layout: layout, rubric: rubric, mode: mode, progress: progress, log: work.appendingPathComponent("build.log"))
        let (broken, excluded) = try builder.build(excluding: unselected)
        let exercises = rubric.exercises.filter { round[$0.name] != nil }
        var products: TestProducts?
        if copyingProduct, exercises.contains(where: { broken[$0.name] == nil }) {
            let binary = try TestProducts.of(mode, layout: layout).binary(of: TestProducts.packageProduct)
            let folder = work.appendingPathComponent("product")
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: binary, to: folder.appendingPathComponent(binary.lastPathComponent))
            products = TestProducts(mode: mode, binPath: folder)
        }
        return BuiltRound(index: index, mode: mode, exercises: exercises, broken: broken, excluded: excluded,
                          products: products, buildSeconds: Date().timeIntervalSince(started))
    }

    /// Runs a built round's suites, then its systematic checks and its race check, and proves
    /// each variant within its cap; a race-only variant's race check must also fail closed.
    func judgeRound(_ built: BuiltRound, catalog: VariantCatalog, progress: any GradingProgress) throws -> [StepOutcome] {
        var session = session(built.mode, progress)
        session.testProducts = built.products
        let started = Date()
        var results = try PhaseTimings.shared.measure(PhaseName.suites) {
            try session.gradeBuilt(built.exercises, broken: built.broken, excluded: built.excluded)
        }
        // A variant whose fault is an order the stress loop takes only sometimes, or only a data
        // race, can pass every stress check: full points and "complete" must still be out of its
        // reach, through the systematic checks and the race check, as in a grade.
        let judged = ModelGate.exercisesToJudge(results, focus: nil) { _ in true }
        _ = modelGate(built.mode, progress).apply(to: &results, judging: judged)
        try raceCheck(built.mode, progress).apply(to: &results)
        let round = built.mode.variantsByExercise
        let caps = Dictionary(uniqueKeysWithValues: round.compactMap { exercise, variant in catalog.caps[variant]?[exercise].map { (exercise, $0) } })
        let names = built.exercises.map { "\($0.name) \(round[$0.name] ?? "")" }.joined(separator: ", ")
        let seconds = String(format: "build %.1f s, checks %.1f s", built.buildSeconds, Date().timeIntervalSince(started))
        var steps = [StepOutcome(name: "variants \(names) earn no more than their caps (\(seconds))",
                                 problems: capProblems(results, caps: caps, variants: round))]
        for (variant, exercise) in catalog.raceOnly where round[exercise] == variant {
            let faulted = try timed { try raceCheckWithoutSanitizer(built.mode, exercise: exercise, graded: results, progress) }
            steps.append(StepOutcome(
                name: "the race check fails closed: \(exercise)'s \(variant), ThreadSanitizer unable to start (\(Self.sanitizerFault.description)), reads \"race check could not run\" and earns nothing for it (\(faulted.seconds) s)",
                problems: faulted.value))
        }
        return steps
    }
}
