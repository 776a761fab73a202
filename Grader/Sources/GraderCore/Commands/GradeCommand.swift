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
        let report = try grade(selected, progress: progress) { checksDone in
            // The points are known; the race check's ThreadSanitizer run may take a while (its
            // first build much longer): show them now, the verdict follows.
            progress.clear()
            print(TextReport.render(checksDone, screen: screen(for: checksDone, history: history, style: style), style: style, raceCheckPending: true))
            Style.flush()
            raceChecked = checksDone.exercises.filter { if case .lookingForRaces = $0.status { true } else { false } }.map(\.name)
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
        // Last, once the grade is printed, kept and written: it may take a while, and a Ctrl-C
        // during it loses nothing.
        if arguments.modelSearch, !arguments.solutions, arguments.variant == nil, !Interrupt.requested {
            searchInterleavings(report, focus: finalScreen.focus, style: style)
            if Interrupt.requested {
                print(L("Interrupted: the search for an interleaving was stopped; the grade above was kept.",
                        "已中断：寻找交错执行的步骤已停止；上面的评分已经保存。"))
                return 2
            }
        }
        return report.allComplete ? 0 : 1
    }

    /// Grades `selected`: the suites, then, unless told not to, the race check (ThreadSanitizer)
    /// on the exercises whose other checks all pass. `beforeRaceCheck` gets the report as it
    /// stands when a ThreadSanitizer run is about to start (not when every verdict is remembered).
    func grade(_ selected: [Rubric.Exercise], progress: any GradingProgress,
               beforeRaceCheck: (GradeReport) -> Void = { _ in }) throws -> GradeReport {
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
        func report() -> GradeReport {
            var report = GradeReport(mode: mode, exercises: results, modifiedFiles: modified, date: Date())
            report.seconds = Date().timeIntervalSince(started)
            return report
        }
        if arguments.raceCheck && !arguments.sanitize && !Interrupt.requested {
            let check = RaceCheck(layout: layout, rubric: rubric, mode: mode, progress: progress)
            if !check.unknown(in: results).isEmpty { beforeRaceCheck(report()) }
            try check.apply(to: &results)
        } else if !arguments.sanitize {
            for index in results.indices { results[index].record(.notRun(reason: "--no-race-check")) }
        }
        return report()
    }

    /// Under the grade, an order of the threads that breaks a failing check of the exercise in
    /// focus, when the model covers it and the learner has started it (`ModelSearch`).
    func searchInterleavings(_ report: GradeReport, focus: String?, style: Style) {
        guard let exercise = report.exercises.first(where: { $0.name == focus }),
              let manifest = IntegrityManifest.load(layout: layout) else { return }
        let failing = ModelSearch.failingStressChecks(of: exercise, started: manifest.isStarted(exercise.name, layout: layout))
        guard !failing.isEmpty else { return }
        Style.flush()  // the grade before the search's progress line on standard error
        let search = ModelSearch(command: ModelCommand(layout: layout, rubric: rubric, arguments: arguments))
        let lines = search.lines(for: exercise, failing: failing)
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
