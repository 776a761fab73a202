import Foundation

/// The screen a learner reads after every run: one line per exercise, where the course stands,
/// and the detail (every failing check, the first with its message, the next step) for the
/// exercise in focus only, so that the answer to "where am I, and what do I do next?" fits one terminal page.
public enum TextReport {
    /// The table, the course's progress, the focus's detail, the score and the next step. With
    /// `pending`, the table and a line that says which verdicts are being looked for (the rest
    /// follows in `renderRaceVerdicts`).
    public static func render(_ report: GradeReport, screen: Screen, style: Style, pending: PendingVerdicts? = nil) -> String {
        var lines = header(report, style: style)
        lines += table(report, screen: screen, style: style)
        lines.append("")
        if let pending {
            var text = L("Points so far: \(report.points)/\(report.totalPoints).", "目前得分：\(report.points)/\(report.totalPoints)。")
            if !pending.orders.isEmpty {
                text += L(" The systematic checks of \(pending.orders.joined(separator: ", ")) are trying the orders of the threads' synchronization calls…",
                          " 系统检查正在尝试 \(pending.orders.joined(separator: "、")) 的线程同步调用的各种顺序…")
            }
            if !pending.races.isEmpty && pending.orders.isEmpty {
                text += L(" Every other check of \(pending.races.joined(separator: ", ")) passes; ThreadSanitizer is looking for data races (the last check)…",
                          " \(pending.races.joined(separator: "、")) 的其他检查都已通过，ThreadSanitizer 正在检查数据竞争（最后一项检查）…")
            } else if !pending.races.isEmpty {
                // The race check runs only after the systematic checks, and only if they hold.
                text += L(" Every other check of \(pending.races.joined(separator: ", ")) passes; if the systematic checks hold, ThreadSanitizer looks for data races next (the last check).",
                          " \(pending.races.joined(separator: "、")) 的其他检查都已通过；如果系统检查成立，接下来 ThreadSanitizer 会检查数据竞争（最后一项检查）。")
            }
            lines += TextLayout.hanging(text, "", width: screen.width)
            return lines.joined(separator: "\n")
        }
        lines += progress(report, screen: screen, style: style)
        lines += focus(report, screen: screen, style: style)
        return lines.joined(separator: "\n")
    }

    /// The second step of a run whose systematic checks or race check ran after the table was
    /// shown: one line per exercise checked, then the progress, the focus's detail and the next step.
    public static func renderRaceVerdicts(_ report: GradeReport, checked: [String], screen: Screen, style: Style) -> String {
        var lines: [String] = []
        for exercise in report.exercises where checked.contains(exercise.name) {
            let race = exercise.checks.first { $0.test == Rubric.raceCheckTest }
            if let finding = exercise.orderFindings.first {
                let what = finding.crash ? L("makes the code crash", "让代码崩溃") : L("breaks a property", "违反了一项性质")
                lines.append(style.red("✘ ") + L("\(exercise.name): the systematic check \"\(finding.title)\" found an order of the synchronization calls that \(what): ",
                                                 "\(exercise.name)：系统检查“\(finding.title)”找到了一种同步调用顺序，它\(what)，")
                             + statusWord(exercise.status, style: style) + L(".", "。"))
                continue
            }
            switch exercise.status {
            case .dataRace(let finding):
                let place = finding.file.map { "\($0):\(finding.line ?? 0)" }
                lines.append(style.red("✘ ") + L("\(exercise.name): ThreadSanitizer found a data race" + (place.map { " at \($0)" } ?? "") + ": not complete.",
                                                 "\(exercise.name)：ThreadSanitizer 发现了数据竞争" + (place.map { "（\($0)）" } ?? "") + "，未完成。"))
            case .complete, .completeOnThisPlatform:
                lines.append(style.green("✔ ") + L("\(exercise.name): no data race" + (race.map { " (+\($0.earned) points)" } ?? "") + ": ",
                                                   "\(exercise.name)：没有数据竞争" + (race.map { "（+\($0.earned) 分）" } ?? "") + "，")
                             + statusWord(exercise.status, style: style) + L(".", "。"))
            default:
                lines.append("\(exercise.name)" + L(": ", "：") + statusWord(exercise.status, style: style) + L(".", "。"))
            }
        }
        lines.append("")
        lines += progress(report, screen: screen, style: style)
        lines += focus(report, screen: screen, style: style)
        return lines.joined(separator: "\n")
    }

    static func header(_ report: GradeReport, style: Style) -> [String] {
        let source = report.mode.solutions ? "Solutions/" : "Exercises/"
        var lines = [style.bold(L("Concurrency Kata · grading \(source)", "Concurrency Kata · 评分：\(source)"))
                     + (report.mode.sanitize ? L(" with ThreadSanitizer", "（ThreadSanitizer）") : "")]
        if !report.modifiedFiles.isEmpty {
            lines.append(style.yellow(L("Warning: these files differ from the committed originals, so this score may not be comparable: ",
                                        "警告：以下文件与提交的原始版本不同，这个分数可能不可比："))
                + report.modifiedFiles.prefix(5).joined(separator: ", ")
                + (report.modifiedFiles.count > 5 ? L(" and \(report.modifiedFiles.count - 5) more", " 等 \(report.modifiedFiles.count) 个文件") : ""))
        }
        return lines + [""]
    }

    /// One line per exercise: number, name, points, checks, status; with `--verbose`, each
    /// exercise's detail under its line.
    static func table(_ report: GradeReport, screen: Screen, style: Style) -> [String] {
        let numberWidth = max(1, String(screen.numbers.values.max() ?? report.exercises.count).count)
        let headings = (number: "#", exercise: L("Exercise", "练习"), points: L("Points", "得分"), checks: L("Checks", "检查"), status: L("Status", "状态"))
        let nameWidth = max(TextLayout.width(headings.exercise), report.exercises.map { TextLayout.width($0.name) }.max() ?? 0)
        let pointsWidth = max(TextLayout.width(headings.points), report.exercises.map { "\($0.points)/\($0.totalPoints)".count }.max() ?? 0)
        let checksWidth = max(TextLayout.width(headings.checks), report.exercises.map { "\($0.passedChecks)/\($0.checks.count)".count }.max() ?? 0)
        func row(_ number: String, _ name: String, _ points: String, _ checks: String, _ status: String) -> String {
            "  " + TextLayout.pad(number, to: numberWidth, alignRight: true) + "  " + TextLayout.pad(name, to: nameWidth)
                + "  " + TextLayout.pad(points, to: pointsWidth, alignRight: true) + "  " + TextLayout.pad(checks, to: checksWidth, alignRight: true)
                + "  " + status
        }
        var lines = [style.dim(row(headings.number, headings.exercise, headings.points, headings.checks, headings.status))]
        for (index, exercise) in report.exercises.enumerated() {
            let number = screen.numbers[exercise.name].map(String.init) ?? String(index + 1)
            let marker = exercise.name == screen.focus && !screen.verbose ? " ◀" : ""
            lines.append(row(number, exercise.name, "\(exercise.points)/\(exercise.totalPoints)",
                             "\(exercise.passedChecks)/\(exercise.checks.count)", statusWord(exercise.status, style: style) + marker))
            if screen.verbose { lines += detail(exercise, screen: screen, style: style, prefix: "      ") }
        }
        return lines
    }

    /// The score of this run (with the change since the last one), and the course's progress:
    /// exercises complete, points, and a bar on a terminal.
    static func progress(_ report: GradeReport, screen: Screen, style: Style) -> [String] {
        var score = style.bold(L("Score: ", "得分：") + "\(report.points)/\(report.totalPoints)")
        if let history = screen.history {
            if let change = history.changeSinceLast {
                let signed = "\(change > 0 ? "+" : "")\(change)"
                score += change == 0 ? L(" (no change since the last run", "（与上次相同") : L(" (\(signed) since the last run", "（比上次 \(signed)")
                score += history.best > report.points ? L("; best \(history.best))", "；最好 \(history.best)）") : L(")", "）")
            } else {
                score += L(" (first run)", "（第一次评分）")
            }
        }
        guard let course = screen.course else { return [score] }
        var line = L("Course: \(course.complete) of \(course.exercises) exercises complete", "课程：已完成 \(course.complete)/\(course.exercises) 个练习")
        if course.totalPoints != report.totalPoints { line += L(" · \(course.points)/\(course.totalPoints) points", " · \(course.points)/\(course.totalPoints) 分") }
        if screen.width != nil {
            let cells = 20
            let filled = course.totalPoints == 0 ? 0 : min(cells, course.points * cells / course.totalPoints)
            let percent = course.totalPoints == 0 ? 0 : course.points * 100 / course.totalPoints
            line += "  " + style.green(String(repeating: "█", count: filled)) + style.dim(String(repeating: "░", count: cells - filled)) + " \(percent) %"
        }
        return [score, line]
    }

    /// What this platform could not check in a complete exercise, said with the congratulations:
    /// a learner reads "complete" as "all checked", so the default screen names it.
    static func unchecked(_ exercise: ExerciseResult, screen: Screen, style: Style) -> [String] {
        guard case .completeOnThisPlatform(let note) = exercise.status else { return [] }
        return TextLayout.indented(L("Note (\(exercise.name) on \(Platform.name)): ", "注意（\(exercise.name)，\(Platform.name)）：") + note,
                                   prefix: "", width: screen.width).map { style.dim($0) }
    }

    /// The exercise in focus: its detail and the next step; or the congratulations.
    static func focus(_ report: GradeReport, screen: Screen, style: Style) -> [String] {
        guard let name = screen.focus, let exercise = report.exercises.first(where: { $0.name == name }), !exercise.isComplete || screen.verbose else {
            if let name = screen.focus, report.exercises.count > 1, let done = report.exercises.first(where: { $0.name == name && $0.isComplete }), !report.allComplete {
                return ["", style.green(L("\(name) is complete. Well done!", "\(name) 已完成，干得好！"))] + unchecked(done, screen: screen, style: style)
            }
            if report.exercises.count == 1, let only = report.exercises.first, only.isComplete {
                return ["", style.green(L("\(only.name) is complete. Well done!", "\(only.name) 已完成，干得好！"))
                        + L(" See where you stand in the course: swift run grader list", " 看看整个课程的进度：swift run grader list")]
                    + unchecked(only, screen: screen, style: style)
            }
            guard !report.exercises.isEmpty, report.allComplete else { return [] }
            // "Every exercise" only when every exercise of the course was graded.
            let names = report.exercises.map(\.name)
            let praise = names.count >= screen.numbers.count
                ? L("Every exercise is complete. Well done!", "所有练习都已完成，干得好！")
                : L("\(ListFormat.and(names)) are complete (the \(names.count) of \(screen.numbers.count) exercises graded here). Well done! See where you stand in the course: swift run grader list",
                    "\(names.joined(separator: "、")) 都已完成（这里评了 \(screen.numbers.count) 个练习中的 \(names.count) 个），干得好！看看整个课程的进度：swift run grader list")
            return ["", style.green(praise)] + report.exercises.flatMap { unchecked($0, screen: screen, style: style) }
        }
        var lines = [""]
        if !screen.verbose {
            let number = screen.numbers[name].map { "\($0). " } ?? ""
            lines.append(style.bold("▶ \(number)\(exercise.title)") + L(" (\(exercise.name)): ", "（\(exercise.name)）：") + statusWord(exercise.status, style: style))
            lines += detail(exercise, screen: screen, style: style, prefix: "  ")
        }
        return lines + nextStep(exercise, style: style).flatMap { TextLayout.hanging($0, "      ", width: screen.width) }
    }

    static func statusWord(_ status: ExerciseStatus, style: Style) -> String {
        switch status {
        case .complete, .completeOnThisPlatform: style.green(status.word)
        case .inProgress, .lookingForRaces, .raceCheckNotRun, .raceCheckCouldNotRun: style.yellow(status.word)
        default: style.red(status.word)
        }
    }

    /// What an exercise's status means for the learner, each line after `prefix`, messages
    /// keeping their own indentation and wrapped to the terminal's width (not at all on a pipe).
    static func detail(_ exercise: ExerciseResult, screen: Screen, style: Style, prefix: String) -> [String] {
        func text(_ body: String) -> [String] { TextLayout.indented(body, prefix: prefix, width: screen.width) }
        switch exercise.status {
        case .complete:
            return []
        case .completeOnThisPlatform(let note):
            return text(L("Note: ", "注意：") + note).map { style.dim($0) }
        case .exitedEarly(let code, let running):
            return text(L("The process exited with status \(code) while \(running.map { "\"\($0)\"" } ?? "the suite") was running: something in your code called exit(). A check passes only when it runs to its end.",
                          "进程在运行\(running.map { "“\($0)”" } ?? "测试套件")时以状态 \(code) 退出：你的代码调用了 exit()。检查只有运行到最后才算通过。"))
        case .outputLimitExceeded(let running):
            let limit = ChildLimits(deadline: 0).outputLimit >> 20
            return text(L("Output limit exceeded in \(running.map { "\"\($0)\"" } ?? "the suite"): more than \(limit) MB were printed; it was stopped. Look for a print in a loop.",
                          "\(running.map { "“\($0)”" } ?? "测试套件")的输出超过了 \(limit) MB，已被停止。找找循环里的 print。"))
        case .inProgress:
            // Every failing check, one line each, the first (the next to work on) with its whole
            // message. The race check is left out: it runs only once every other check passes.
            let failing = exercise.checks.filter { !$0.passed && $0.test != Rubric.raceCheckTest }
            guard let first = failing.first else { return [] }
            return TextLayout.hanging(prefix + "✘ " + first.title, prefix + "  ", width: screen.width)
                + TextLayout.indented(first.message ?? "", prefix: prefix + "  ", width: screen.width).map { style.dim($0) }
                + failing.dropFirst().flatMap { TextLayout.hanging(prefix + "✘ " + $0.title, prefix + "  ", width: screen.width) }
        case .doesNotCompile(let error):
            return text("\(error.file):\(error.line): error: \(error.message)")
        case .timedOut(let running, let seconds):
            return text(L("Deadlock suspected in \(running.map { "\"\($0)\"" } ?? "the suite"): it was still running after \(Int(seconds)) s and was stopped. Look for a wait that is never signalled, a lock taken twice, or sync onto the queue you are already on.",
                          "疑似死锁：\(running.map { "“\($0)”" } ?? "测试套件")运行了 \(Int(seconds)) 秒仍未结束，已被停止。检查有没有永远等不到 signal 的等待、被同一线程加了两次的锁，或者 sync 到当前所在的队列。"))
        case .crashed(let signal, let running):
            let place = running.map { "“\($0)”" } ?? L("the suite", "测试套件")
            return text(signal == 0
                ? L("The suite exited before it finished in \(place): \(Scoring.crashExplanation(signal)).", "测试套件在\(place)中途退出：\(Scoring.crashExplanation(signal))。")
                : L("Crashed with signal \(signal) in \(place): \(Scoring.crashExplanation(signal)).", "\(place)中崩溃（信号 \(signal)）：\(Scoring.crashExplanation(signal))。"))
        case .dataRace(let finding):
            return text(L("ThreadSanitizer: \(finding.summary)\(finding.file.map { " at \($0):\(finding.line ?? 0)" } ?? ""): two threads touch that state at once, at least one writing, without protection.",
                          "ThreadSanitizer：\(finding.summaryInChinese)\(finding.file.map { "（\($0):\(finding.line ?? 0)）" } ?? "")：两个线程同时访问这份状态，至少一个在写，而且没有保护。"))
                + RaceReportText.lines(finding, allFrames: screen.verbose).flatMap(text)
        case .lookingForRaces:
            return text(L("Every other check passes. ThreadSanitizer is running the suite once more to look for data races (the last check).",
                          "其他检查都已通过。ThreadSanitizer 正在再运行一遍测试套件，检查数据竞争（最后一项检查）。"))
        case .raceCheckNotRun(let reason):
            return text(L("Every other check passes, but the race check did not run (\(reason)): its points are not earned and the exercise is not complete.",
                          "其他检查都已通过，但数据竞争检查没有运行（\(reason)）：拿不到它的分数，练习也不算完成。"))
        case .raceCheckCouldNotRun(let reason):
            return text(L("Every other check passes, but the race check could not run: \(reason). Nothing was found wrong with your code; the race check's points wait until ThreadSanitizer runs and its report is read.",
                          "其他检查都已通过，但数据竞争检查无法运行：\(reason)。这不说明你的代码有错；要等 ThreadSanitizer 运行并读到它的报告，才能拿到这项的分数。"))
        }
    }

    static func nextStep(_ exercise: ExerciseResult, style: Style) -> [String] {
        guard !exercise.isComplete else { return [] }
        var lines = [""]
        let next = style.bold(L("Next: ", "下一步："))
        switch exercise.status {
        case .doesNotCompile(let error):
            lines.append(next + L("make \(exercise.name) compile (\(error.file):\(error.line)).", "让 \(exercise.name) 通过编译（\(error.file):\(error.line)）。"))
        case .inProgress:
            let title = exercise.firstFailing?.title ?? ""
            lines.append(next + L("in \(exercise.name), make \"\(title)\" pass.", "在 \(exercise.name) 中让“\(title)”通过。"))
        case .raceCheckNotRun:
            lines.append(next + L("grade \(exercise.name) without --no-race-check: the race check is its last check.",
                                  "去掉 --no-race-check 再给 \(exercise.name) 评分：数据竞争检查是它的最后一项检查。"))
            return lines
        case .raceCheckCouldNotRun:
            lines.append(next + L("grade \(exercise.name) again; if the race check still cannot run, see ThreadSanitizer's log:",
                                  "再给 \(exercise.name) 评一次分；如果数据竞争检查仍然无法运行，查看 ThreadSanitizer 的日志："))
            lines.append("      swift run grader \(exercise.name) --sanitize --verbose")
            return lines
        case .dataRace(let finding):
            let place = finding.file.map { "\($0):\(finding.line ?? 0)" }
            lines.append(next + L("in \(exercise.name), protect the state that two threads touch at once" + (place.map { " (\($0))" } ?? "") + ".",
                                  "在 \(exercise.name) 中保护被两个线程同时访问的状态" + (place.map { "（\($0)）" } ?? "") + "。"))
            lines.append(L("      Every frame of both:  ", "        两次访问的每一帧：") + "swift run grader \(exercise.name) --verbose")
            lines.append(L("      Get a hint:           ", "        获取提示：        ") + "swift run grader hint \(exercise.name)")
            return lines
        default:
            lines.append(next + L("fix \(exercise.name) (", "修复 \(exercise.name)（") + statusWord(exercise.status, style: .plain) + L(").", "）。"))
        }
        lines.append(L("      Run its suite: ", "        运行测试：") + "swift test --filter \(exercise.name)Tests")
        lines += ModelText.nextStep(exercise)
        lines.append(L("      Get a hint:    ", "        获取提示：") + "swift run grader hint \(exercise.name)")
        return lines
    }

    /// Words of `text` in lines of at most `width` characters (for the bench's notes).
    static func wrapped(_ text: String, width: Int) -> [String] {
        TextLayout.indented(text, prefix: "", width: width)
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}

/// Lists in running text.
enum ListFormat {
    /// "A", "A and B", "A, B and C".
    static func and(_ items: [String]) -> String {
        guard items.count > 1, let last = items.last else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + last
    }
}
