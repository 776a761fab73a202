import Foundation

/// What `grader model` and `grader replay` print, in the current language. The swim lanes come
/// from the runner in that language; code (file:line, operation names) stays code.
enum ModelText {
    static func heading(exercise: String, folder: String, budget: Int) -> String {
        L("Systematic checks of \(exercise) on \(folder)/: each check's threads run one at a time, switching only at synchronization calls, in up to \(grouped(budget)) different orders (schedules).",
          "\(exercise) 的系统检查，对象是 \(folder)/：每项检查的线程一次只运行一个，只在同步调用处切换，最多尝试 \(grouped(budget)) 种不同的顺序（调度）。")
    }

    /// 1000 as "1,000", as the course's documents write numbers.
    static func grouped(_ number: Int) -> String {
        let digits = String(number)
        return digits.enumerated().map { index, digit in
            index > 0 && (digits.count - index) % 3 == 0 ? ",\(digit)" : "\(digit)"
        }.joined()
    }

    static func checkResult(_ verdict: ModelVerdict, exercise: String, replaySuffix: String) -> String {
        switch verdict {
        case .cannotRun(let why): return couldNotRun(why)
        case .notApplicable(let uses): return notApplicable(uses, exercise: exercise)
        case .report(let report):
            var lines: [String] = []
            let several = report.checks.count > 1
            for check in report.checks {
                let seconds = String(format: "%.2f", check.seconds)
                let title = check.title ?? check.name
                if check.verdict == "pass" {
                    lines.append(L("✓ \(title): every property held in \(check.schedules) schedules (\(seconds) s)",
                                   "✓ \(title)：\(check.schedules) 个调度中所有性质都成立（\(seconds) 秒）"))
                } else {
                    lines += checkLines(check, exercise: exercise, several: several, replaySuffix: replaySuffix)
                }
            }
            let passed = report.checks.filter { $0.verdict == "pass" }.count
            lines.append(L("\(passed) of \(report.checks.count) systematic checks held.", "\(report.checks.count) 项系统检查中有 \(passed) 项成立。"))
            lines.append(scope(exercise))
            return lines.joined(separator: "\n")
        }
    }

    /// A check that did not hold: its verdict, its swim lanes and the line that replays it.
    static func checkLines(_ check: ModelRunReport.Check, exercise: String, several: Bool, replaySuffix: String) -> [String] {
        let title = check.title ?? check.name
        let number = check.number.map(String.init) ?? "?"
        var lines: [String]
        switch check.verdict {
        case "fail": lines = [L("✗ \(title): schedule \(number) breaks it", "✗ \(title)：调度 \(number) 让它失败")]
        case "crash": lines = [L("✗ \(title): schedule \(number) crashes your code", "✗ \(title)：调度 \(number) 让你的代码崩溃")]
        default: lines = [L("? \(title): could not judge schedule \(number): see the last line below",
                            "? \(title)：无法判断调度 \(number)：见下面最后一行")]
        }
        lines += (check.picture ?? "").split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }
        let replay = "swift run grader replay \(exercise) \(number)" + (several ? " --check \(check.index)" : "") + replaySuffix
        let code = check.code.map { L(" (the same as code:\($0))", "（等同于 code:\($0)）") } ?? ""
        lines.append("    " + L("Replay: ", "重放：") + replay + code)
        return lines
    }

    static func replayResult(_ verdict: ModelVerdict, exercise: String) -> String {
        switch verdict {
        case .cannotRun(let why): return couldNotRun(why)
        case .notApplicable(let uses): return notApplicable(uses, exercise: exercise)
        case .report(let report):
            return report.checks.map { check in
                L("\(exercise), check \(check.index) (\(check.title ?? check.name)):", "\(exercise)，检查 \(check.index)（\(check.title ?? check.name)）：") + "\n" + (check.picture ?? "")
            }.joined(separator: "\n")
        }
    }

    static func couldNotRun(_ why: String) -> String {
        L("could not run: ", "无法运行：") + why + "\n"
            + L("No verdict: this is not a pass. The stress checks (swift run grader) judge your code as usual.",
                "没有结论：这不算通过。压力检查（swift run grader）照常评判你的代码。")
    }

    static func notApplicable(_ uses: [ModelApplicability.Use], exercise: String) -> String {
        let list = uses.map { "\($0.what) (\($0.file):\($0.line))" }.joined(separator: ", ")
        return L("not applicable: uses \(list).", "不适用：用到了 \(list)。") + "\n"
            + L("The model can only interleave the synchronization it has twins of (\(ModelApplicability.twinned)); anything else would run outside its schedules, so it gives no verdict here and you lose no points. The stress checks (swift run grader \(exercise)) judge your code as usual.",
                "模型只能在它有替身的同步类型（\(ModelApplicability.twinned)）之间切换线程；其他同步会在它的调度之外运行，所以这里不给结论，也不扣分。压力检查（swift run grader \(exercise)）照常评判你的代码。")
    }

    /// The grade's next step, when a stress check of an exercise the model covers fails (the
    /// statuses that reach the "Run its suite" line: a failing check, a hang, a crash, an exit):
    /// the command that explores and draws its systematic checks on their own.
    static func nextStep(_ exercise: ExerciseResult) -> [String] {
        guard ModelApplicability.exercises.contains(exercise.name) else { return [] }
        if case .doesNotCompile = exercise.status { return [] }
        return [L("      Interleavings: ", "        交错执行：") + "swift run grader model \(exercise.name)"]
    }

    static func scope(_ exercise: String) -> String {
        L("The model switches threads only at synchronization calls: a data race on plain memory is the race check's (swift run grader \(exercise) --sanitize).",
          "模型只在同步调用处切换线程：普通内存上的数据竞争由竞争检查负责（swift run grader \(exercise) --sanitize）。")
    }
}
