import Foundation

/// `grader [exercise...]`: build, run, score, look for data races in what passes, print, keep
/// history, write the machine-readable reports.
struct GradeCommand {
    var layout: KataLayout
    var rubric: Rubric
    var arguments: Arguments

    func run() throws -> Int32 {
        var selected = try GraderApp.select(arguments.exercises, from: rubric)
        if let variant = arguments.variant {
            selected = selected.filter { FileManager.default.fileExists(atPath: layout.root.appendingPathComponent("Grader/Variants/\($0.name)/\(variant)").path) }
            guard !selected.isEmpty else { throw GraderError.badArguments("no exercise has a variant named \(variant)") }
        }
        let style = Style.detect()
        let progress = TerminalProgress(style: style)
        var raceChecked: [String] = []
        var history = History(file: layout.stateDirectory.appendingPathComponent("history.json"))
        let report = try grade(selected, progress: progress) { checksDone, pending in
            // The points are known; the systematic checks and the race check's ThreadSanitizer
            // run may take a while (their first builds much longer): show them now, the verdicts
            // follow.
            progress.clear()
            print(TextReport.render(checksDone, screen: screen(for: checksDone, history: history, style: style), style: style, pending: pending))
            Style.flush()
            raceChecked = pending.all
        }
        progress.clear()
        if Interrupt.requested {
            print(L("Interrupted: every process the grader started was stopped; no score was recorded.", "已中断：评分程序启动的进程都已停止；没有记录分数。"))
            return 2
        }
        if let warning = history.warning { print(style.yellow(L("Warning: ", "警告：") + warning)) }
        let finalScreen = screen(for: report, history: history, style: style)
        print(raceChecked.isEmpty
              ? TextReport.render(report, screen: finalScreen, style: style)
              : TextReport.renderRaceVerdicts(report, checked: raceChecked, screen: finalScreen, style: style))
        // A variant's grade (a maintainer's measurement) is nobody's progress.
        do { if arguments.variant == nil { try history.record(report.exercises, solutions: arguments.solutions) } } catch {
            print(style.yellow(L("Warning: the run could not be added to the history: ", "警告：这次评分没能写入历史：") + error.localizedDescription))
        }
        try writeMachineReports(report)
        // Last, under the grade: the interleaving the systematic checks found, drawn.
        if arguments.modelSearch { searchInterleavings(report, focus: finalScreen.focus, style: style) }
        if let path = arguments.timingsFile { try PhaseTimings.shared.write(to: path) }
        return report.allComplete ? 0 : 1
    }

    /// Grades `selected`: the suites; then the systematic checks of the exercises the model
    /// covers (`ModelGate`: the one in focus, and any whose stress checks all pass); then, unless
    /// told not to, the race check (ThreadSanitizer) on the exercises whose other checks all pass.
    /// `beforeLongSteps` gets the report as it stands, once, when a modeled run or a
    /// ThreadSanitizer run is about to start (not when every verdict is remembered).
    func grade(_ selected: [Rubric.Exercise], progress: any GradingProgress,
               beforeLongSteps: (GradeReport, PendingVerdicts) -> Void = { _, _ in }) throws -> GradeReport {
        let started = Date()
        let mode = BuildMode(solutions: arguments.solutions, sanitize: arguments.sanitize, variant: arguments.variant,
                             buildSystem: arguments.resolvedBuildSystem)
        let session = GradingSession(
            layout: layout, rubric: rubric, mode: mode, repetitions: arguments.repetitions,
            timeoutOverride: arguments.timeout, progress: progress)
        var results = try session.grade(selected)
        let manifest = IntegrityManifest.load(layout: layout)
        if !arguments.solutions, arguments.variant == nil, let manifest {
            for index in results.indices { results[index].copiedFromSolution = manifest.isCopiedFromSolution(results[index].name, layout: layout) }
        }
        let modified = modifiedFiles(manifest)
        var modelVerdicts: [String: ModelVerdict] = [:]
        func report() -> GradeReport {
            var report = GradeReport(mode: mode, exercises: results, modifiedFiles: modified, date: Date())
            report.seconds = Date().timeIntervalSince(started)
            report.modelVerdicts = modelVerdicts
            return report
        }
        let race = RaceCheck(layout: layout, rubric: rubric, mode: mode, progress: progress)
        let raceChecking = arguments.raceCheck && !arguments.sanitize
        var announced = false
        if !arguments.sanitize && !Interrupt.requested {
            let learner = !arguments.solutions && arguments.variant == nil
            let focus = Focus.choose(report(), named: arguments.exercises, layout: layout, manifest: learner ? manifest : nil)
            let gate = ModelGate(layout: layout, rubric: rubric, mode: mode, progress: progress)
            let judged = ModelGate.exercisesToJudge(results, focus: focus) { name in
                !learner || (manifest?.isStarted(name, layout: layout) ?? true)
            }
            let unknown = gate.unknown(judged)
            if !unknown.isEmpty {
                let waitingForRaces = raceChecking ? results.filter { if case .lookingForRaces = $0.status { true } else { false } }.map(\.name) : []
                beforeLongSteps(report(), PendingVerdicts(orders: unknown, races: waitingForRaces))
                announced = true
            }
            modelVerdicts = gate.apply(to: &results, judging: judged)
        }
        if raceChecking && !Interrupt.requested {
            let unknown = race.unknown(in: results)
            if !unknown.isEmpty && !announced { beforeLongSteps(report(), PendingVerdicts(orders: [], races: unknown)) }
            try race.apply(to: &results)
        } else if !arguments.sanitize {
            for index in results.indices { results[index].record(.notRun(reason: "--no-race-check")) }
        }
        return report()
    }

    /// Under the grade, the orders of the threads that the systematic checks found breaking the
    /// exercise in focus, drawn; or, beside a failing check they did not explain, what they saw.
    func searchInterleavings(_ report: GradeReport, focus: String?, style: Style) {
        guard let exercise = report.exercises.first(where: { $0.name == focus }),
              let verdict = report.modelVerdicts[exercise.name] else { return }
        let lines = ModelSearch.render(verdict, exercise: exercise, replaySuffix: ModelCommand.replaySuffix(report.mode, exercise: exercise.name))
        guard !lines.isEmpty, !Interrupt.requested else { return }
        print("")
        print(([style.bold(lines[0])] + lines.dropFirst()).joined(separator: "\n"))
        Style.flush()
    }

    /// What the screen shows around `report`: the score's history, the course's progress, the
    /// exercise in focus, the terminal's width.
    func screen(for report: GradeReport, history: History, style: Style) -> Screen {
        let learner = !arguments.solutions && report.mode.variant == nil
        return Screen(
            history: history.summary(for: report.exercises, solutions: arguments.solutions),
            course: learner ? CourseProgress.of(report, rubric: rubric, history: history) : nil,
            focus: Focus.choose(report, named: arguments.exercises, layout: layout, manifest: learner ? IntegrityManifest.load(layout: layout) : nil),
            verbose: arguments.verbose,
            width: style.live ? TerminalProgress.width : nil,
            numbers: Dictionary(uniqueKeysWithValues: rubric.exercises.enumerated().map { ($1.name, $0 + 1) }))
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
        try write(Classroom50Report.encode(report), to: arguments.classroom50File)
        try write(GradescopeReport.encode(report), to: arguments.gradescopeFile)
    }
}
