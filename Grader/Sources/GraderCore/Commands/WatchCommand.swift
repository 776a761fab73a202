import Foundation

/// `grader watch [exercise]`: after each save under `Exercises/`, re-grade the exercise that
/// changed (or the named one), clear the screen and show its points, checks, the first failing
/// check and the next step. A compile error shows the compiler's first error and waits for the
/// next save. `h` shows the next hint, `q` or Ctrl-C quits.
struct WatchCommand {
    var layout: KataLayout
    var rubric: Rubric
    var arguments: Arguments

    func run() throws -> Int32 {
        let named = try arguments.exercises.first.map { try GraderApp.select([$0], from: rubric)[0] }
        let style = Style.detect()
        let keys = KeyReader()
        defer { keys.close() }
        var loop = WatchLoop(
            detector: ChangeDetector(root: layout.root.appendingPathComponent("Exercises")),
            exercises: rubric.exercises.map(\.name), named: named?.name)
        var current = named?.name ?? firstUnfinished()
        // The race check's ThreadSanitizer build, made ahead of need while the learner works.
        let prebuild = RaceCheckPrebuild(layout: layout, rubric: rubric, buildSystem: arguments.resolvedBuildSystem)
        defer { prebuild.stop() }
        show(regradeOrExplain(current, style: style), style: style)
        if arguments.raceCheck { prebuild.start(current) }
        while !Interrupt.requested {
            switch keys.poll() {
            case .quit?: return 0
            case .hint?: try showHint(current)
            case nil: break
            }
            if let exercise = loop.exerciseToRegrade() {
                current = exercise
                show(regradeOrExplain(exercise, style: style), style: style)
                if arguments.raceCheck { prebuild.start(exercise) }
            }
            usleep(50_000)
        }
        print("\n" + L("Stopped watching.", "已停止监视。"))
        return 0
    }

    /// With no exercise named, start where the learner is: the first one not complete last time.
    func firstUnfinished() -> String {
        let statuses = History(file: layout.stateDirectory.appendingPathComponent("history.json")).latestStatuses
        return rubric.exercises.first { !(statuses[$0.name] ?? "").hasPrefix("complete") }?.name ?? rubric.exercises[0].name
    }

    /// A failure to grade (a broken test file, a build failure outside the exercises) is shown,
    /// and the watch goes on: the next save may fix it.
    func regradeOrExplain(_ name: String, style: Style) -> String {
        do { return try regrade(name, style: style) } catch {
            return style.red(L("Could not grade \(name): \(error)", "无法给 \(name) 评分：\(error)")) + "\n" + L("Save again once it is fixed.", "修好后再保存一次。")
        }
    }

    func regrade(_ name: String, style: Style) throws -> String {
        PhaseTimings.shared.restart()
        // Written before the last screen of this re-grade is shown (what `loop-bench` reads).
        defer { if let path = arguments.timingsFile { try? PhaseTimings.shared.write(to: path) } }
        let progress = TerminalProgress(style: style)
        let lock = try GraderApp.takeLock(layout: layout, wait: true)
        defer { lock.release() }
        var options = arguments
        options.exercises = [name]
        let command = GradeCommand(layout: layout, rubric: rubric, arguments: options)
        var history = History(file: layout.stateDirectory.appendingPathComponent("history.json"))
        let report = try command.grade(try GraderApp.select([name], from: rubric), progress: progress) { checksDone, pending in
            // The points first; the systematic checks' and the race check's verdicts replace this
            // screen when they come.
            progress.clear()
            show(TextReport.render(checksDone, screen: command.screen(for: checksDone, history: history, style: style), style: style, pending: pending), style: style)
        }
        progress.clear()
        let finalScreen = command.screen(for: report, history: history, style: style)
        try? history.record(report.exercises, solutions: false)
        return TextReport.render(report, screen: finalScreen, style: style)
    }

    func show(_ text: String, style: Style) {
        let clear = style.live ? "\u{1B}[2J\u{1B}[H" : "\n"
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "HH:mm:ss"
        let time = formatter.string(from: Date())
        let header = L("grader watch · graded at \(time) · save a file under Exercises/ to re-grade · h: next hint · q: quit",
                       "grader watch · \(time) 评分 · 保存 Exercises/ 下的文件即重新评分 · h：下一条提示 · q：退出")
        print(clear + TextLayout.hanging(header, "", width: style.live ? TerminalProgress.width : nil).map(style.dim).joined(separator: "\n") + "\n")
        print(text)
        Style.flush()
    }

    func showHint(_ name: String) throws {
        print("")
        _ = try HintCommand.run(name, layout: layout, rubric: rubric, onlyNewest: true)
        Style.flush()
    }
}

/// The watch loop's decisions, apart from the terminal: which exercise to re-grade after a
/// settled change (the named one, or the one whose files changed).
struct WatchLoop {
    var detector: ChangeDetector
    var exercises: [String]
    var named: String?

    mutating func exerciseToRegrade(now: Date = Date()) -> String? {
        let changed = detector.poll(now: now)
        guard !changed.isEmpty else { return nil }
        if let named { return named }
        let touched = changed.compactMap { ChangeDetector.exercise(of: $0, among: exercises) }
        return exercises.first { touched.contains($0) }
    }
}
