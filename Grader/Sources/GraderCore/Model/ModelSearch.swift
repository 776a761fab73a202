import Foundation

/// What the grade prints under itself about the systematic checks of the exercise in focus
/// (`ModelGate` ran them before the verdicts): the interleaving that breaks a property, drawn, with
/// the command that replays it; or, when none broke, what the model saw and what it cannot see;
/// or why it gave no verdict.
enum ModelSearch {
    static func heading(_ exercise: String) -> String {
        L("Systematic checks of \(exercise) (2–3 threads run one at a time and switch only at synchronization calls, in up to \(ModelText.grouped(ModelCommand.budget)) orders per check):",
          "\(exercise) 的系统检查（2–3 个线程一次只运行一个，只在同步调用处切换，每项检查最多尝试 \(ModelText.grouped(ModelCommand.budget)) 种顺序）：")
    }

    static func render(_ verdict: ModelVerdict, exercise: ExerciseResult, replaySuffix: String) -> [String] {
        let name = exercise.name
        let failing = exercise.checks.filter { !$0.passed && $0.test != Rubric.raceCheckTest }
        func split(_ text: String) -> [String] { text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        switch verdict {
        case .cannotRun(let why):
            return [heading(name)] + split(ModelText.couldNotRun(why))
        case .notApplicable(let uses):
            return [heading(name)] + split(ModelText.notApplicable(uses, exercise: name))
        case .report(let report):
            guard !report.checks.isEmpty else { return [] }
            var lines = [heading(name)]
            let broken = report.checks.filter { $0.verdict == "fail" || $0.verdict == "crash" }
            if let first = broken.first {
                let titles = exercise.checks.filter { (first.stress ?? []).contains($0.test) }.map { "\"\($0.title)\"" }
                lines.append(L("It breaks the property of \(titles.joined(separator: ", ")):", "它违反了\(titles.map { "“\($0.dropFirst().dropLast())”" }.joined(separator: "、"))的性质："))
                lines += ModelText.checkLines(first, exercise: name, several: true, replaySuffix: replaySuffix)
                for other in broken.dropFirst() {
                    let number = other.number.map(String.init) ?? "?"
                    let replay = "swift run grader replay \(name) \(number) --check \(other.index)" + replaySuffix
                    lines.append(L("✗ \(other.title ?? other.name): schedule \(number) breaks it too; see it: \(replay)",
                                   "✗ \(other.title ?? other.name)：调度 \(number) 也让它失败；查看：\(replay)"))
                }
                return lines
            }
            if let undecided = report.checks.first(where: { $0.verdict != "pass" }) {
                // What the scheduler said (its last line), not a picture of a schedule that never ended.
                let said = (undecided.picture ?? "").split(separator: "\n").last.map { String($0.drop { $0 == "✗" || $0 == " " }) } ?? ""
                lines.append(L("? \(undecided.title ?? undecided.name): the model could not judge it: \(said)",
                               "? \(undecided.title ?? undecided.name)：模型无法判断：\(said)"))
                lines.append(L("No verdict from the model: it changes no check. The stress checks above judge your code.",
                               "模型没有结论，不改变任何检查的结果。由上面的压力检查评判你的代码。"))
                return lines
            }
            let held = report.checks.map { $0.title ?? $0.name }
            let schedules = report.checks.reduce(0) { $0 + $1.schedules }
            let related = failing.filter { test in report.checks.contains { ($0.stress ?? []).contains(test.test) } }
            lines.append(L("✓ No order of the synchronization calls broke \(held.count == 1 ? "it" : "any of them") (\(held.joined(separator: "; ")); \(ModelText.grouped(schedules)) schedules in all).",
                           "✓ 同步调用的任何顺序都没有让它们失败（\(held.joined(separator: "；"))；共 \(ModelText.grouped(schedules)) 个调度）。"))
            if !related.isEmpty {
                lines.append(L("That does not clear \(related.map { "\"\($0.title)\"" }.joined(separator: ", ")): its failure above was observed. Its cause is outside these small programs: more threads or more calls than they make, time (a timeout, a sleep), a crash of another kind, or a data race on plain memory (the race check's, once every other check passes).",
                               "这并不说明\(related.map { "“\($0.title)”" }.joined(separator: "、"))没有问题：上面的失败是实际观察到的。它的原因在这些小程序之外：比它们更多的线程或调用、时间（超时、sleep）、别的崩溃，或普通内存上的数据竞争（其他检查都通过后由竞争检查负责）。"))
            }
            return lines
        }
    }
}
