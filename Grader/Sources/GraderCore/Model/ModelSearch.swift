import Foundation

/// The search under a failing check: after a grade, when a stress check fails in the exercise in focus
/// and that exercise is one the model covers, run its systematic checks (`grader model`'s build and
/// runner) and show, under the grade, an order of the threads' synchronization calls that breaks the
/// same property (the checks whose `ModelCheck.stress` names the failing test). It changes no
/// verdict and no points: the grade is already printed. Anything it cannot judge is said as such.
struct ModelSearch {
    var command: ModelCommand

    /// The failing checks of `exercise` a systematic check may explain; empty when there is
    /// nothing to search for (an exercise the model does not cover, one not started: the stub
    /// is not the learner's code, one that does not compile, or failing only the race check,
    /// which is about plain memory).
    static func failingStressChecks(of exercise: ExerciseResult, started: Bool) -> [CheckResult] {
        guard started, ModelApplicability.exercises.contains(exercise.name) else { return [] }
        switch exercise.status {
        case .inProgress, .timedOut, .crashed, .exitedEarly: break
        default: return []
        }
        return exercise.checks.filter { !$0.passed && $0.test != Rubric.raceCheckTest }
    }

    /// A schedule takes milliseconds; one that runs this long is a loop the model cannot
    /// interleave (polling, a spin), and its thread keeps spinning: give up on it sooner than
    /// `grader model` does.
    static let watchdogSeconds = 2
    /// The search runs after the grade, on every grade of a failing exercise: it may not hold the
    /// learner long. A right exercise's checks take about 2 s here; learner code that sleeps inside
    /// its locks makes every schedule slow. Past this the search says it did not end in time.
    static let deadlineSeconds: Double = 30
    /// The first search of an exercise builds `.build-model` for it (under a minute on this
    /// 2-core machine); a build that takes longer than this is given up, said, and tried again
    /// by the next grade, where it goes on from what it had built.
    static let buildDeadlineSeconds: Double = 300

    /// The lines to print under the grade, or none when no systematic check states the property
    /// of a failing check.
    func lines(for exercise: ExerciseResult, failing: [CheckResult]) -> [String] {
        let tests = failing.map(\.test).joined(separator: ",")
        let verdict = command.run(exercise.name, ["check", "--budget", "\(ModelCommand.budget)", "--stress", tests,
                                                  "--watchdog", "\(Self.watchdogSeconds)"], mayBeEmpty: true,
                                  deadline: Self.deadlineSeconds, buildDeadline: Self.buildDeadlineSeconds)
        return Self.render(verdict, exercise: exercise.name, failing: failing)
    }

    static func render(_ verdict: ModelVerdict, exercise: String, failing: [CheckResult]) -> [String] {
        let heading = L("Interleavings of \(exercise) (systematic exploration: 2–3 threads run one at a time and switch only at synchronization calls, in up to \(ModelText.grouped(ModelCommand.budget)) orders):",
                        "\(exercise) 的交错执行（系统探索：2–3 个线程一次只运行一个，只在同步调用处切换，最多尝试 \(ModelText.grouped(ModelCommand.budget)) 种顺序）：")
        switch verdict {
        case .cannotRun(let why):
            return [heading] + ModelText.couldNotRun(why).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        case .notApplicable(let uses):
            return [heading] + ModelText.notApplicable(uses, exercise: exercise).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        case .report(let report):
            // The runner ran only the checks that state a failing test's property (none: nothing
            // to show), and stopped at the first that did not hold.
            guard !report.checks.isEmpty else { return [] }
            var lines = [heading]
            if let broken = report.checks.first(where: { $0.verdict == "fail" }) {
                let stress = failing.first { (broken.stress ?? []).contains($0.test) }?.title ?? ""
                lines.append(L("It breaks the property of \"\(stress)\":", "它违反了“\(stress)”的性质："))
                lines += ModelText.checkLines(broken, exercise: exercise, several: true, replaySuffix: "")
            } else if let undecided = report.checks.first(where: { $0.verdict != "pass" }) {
                // What the scheduler said (its last line), not a picture of a schedule that never ended.
                let said = (undecided.picture ?? "").split(separator: "\n").last.map { String($0.drop { $0 == "✗" || $0 == " " }) } ?? ""
                lines.append(L("? \(undecided.title ?? undecided.name): the model could not judge it: \(said)",
                               "? \(undecided.title ?? undecided.name)：模型无法判断：\(said)"))
                lines.append(L("No verdict and no interleaving to show: the stress check's message above is what was observed.",
                               "没有结论，也没有交错执行可以展示：上面压力检查的消息就是观察到的情况。"))
            } else {
                let held = report.checks.map { $0.title ?? $0.name }
                let titles = failing.filter { test in report.checks.contains { ($0.stress ?? []).contains(test.test) } }.map(\.title)
                lines.append(L("No order of their synchronization calls breaks \(held.joined(separator: ", ")), the systematic checks with the property of \(titles.map { "\"\($0)\"" }.joined(separator: ", ")) (\(ModelText.grouped(ModelCommand.budget)) schedules each). The model explores only these small programs, and only the order of their synchronization calls: it does not see more threads or repetitions, time, or a data race on plain memory (the race check looks for those: swift run grader \(exercise) --sanitize).",
                               "在同步调用的任何顺序下，\(held.joined(separator: "、"))（与\(titles.map { "“\($0)”" }.joined(separator: "、"))性质相同的系统检查）都成立（各 \(ModelText.grouped(ModelCommand.budget)) 个调度）。模型只探索这些小程序，而且只探索它们同步调用的顺序：它看不到更多的线程或重复、时间，也看不到普通内存上的数据竞争（这些由竞争检查负责：swift run grader \(exercise) --sanitize）。"))
            }
            return lines
        }
    }
}
