import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns suite runs into check results and a status, with the rubric's points.
public enum Scoring {
    /// Scores one exercise from the runs of its suite (one per repetition). A check earns its
    /// points only if it passed in every run, and, when the rubric says it `requires` other
    /// checks, only if those passed too. `terminations` are how the runs ended (for a run
    /// rerun one check at a time, its first abnormal ending).
    public static func score(
        _ exercise: Rubric.Exercise, runs: [EventStream], terminations: [Termination],
        deadline: Double, seconds: Double
    ) -> ExerciseResult {
        let declared = runs.first(where: { !$0.declared.isEmpty })?.declared ?? []
        var checks: [CheckResult] = []
        for check in exercise.checks {
            if check.isRaceCheck {
                // Run by the grader once every other check passes (`ExerciseResult.record`).
                checks.append(CheckResult(
                    test: check.test, title: Rubric.raceCheckTitle, points: check.points, earned: 0, passed: false,
                    message: raceCheckWaits))
                continue
            }
            let test = declared.first { $0.name == check.test }
            var passed = test != nil && !runs.isEmpty
            var firstIssue: IssueReport?
            for (run, termination) in zip(runs, terminations) {
                guard let test else { break }
                let outcome = run.runs[test.id] ?? TestRun()
                if !outcome.passed {
                    passed = false
                    if firstIssue == nil {
                        firstIssue = outcome.issues.first ?? IssueReport(message: unfinishedMessage(
                            started: outcome.started, termination: termination, deadline: deadline))
                    }
                }
            }
            if test == nil {
                firstIssue = IssueReport(message: L("No test named \(check.test)() was found in Tests/\(exercise.name)Tests: were the tests edited?",
                                                    "在 Tests/\(exercise.name)Tests 里找不到名为 \(check.test)() 的测试：测试被改过吗？"))
            }
            let englishTitle = test?.displayName ?? check.test
            let title = Language.current == .simplifiedChinese ? check.zhHans?.title ?? englishTitle : englishTitle
            checks.append(CheckResult(
                test: check.test, title: title, points: check.points,
                earned: passed ? check.points : 0, passed: passed,
                message: passed ? nil : firstIssue?.message, file: firstIssue?.file, line: firstIssue?.line))
        }
        withholdPointsOfUnmetRequirements(&checks, exercise: exercise)
        var status = status(checks: checks.filter { $0.test != Rubric.raceCheckTest }, runs: runs, terminations: terminations, deadline: deadline)
        if status == .complete, exercise.raceCheck != nil {
            status = .lookingForRaces
            if let index = checks.firstIndex(where: { $0.test == Rubric.raceCheckTest }) { checks[index].message = L("Not checked yet.", "尚未检查。") }
        } else if status == .complete, let note = exercise.localizedPlatformNote, !Platform.checksEverything {
            status = .completeOnThisPlatform(note: note)
        }
        var result = ExerciseResult(
            name: exercise.name, title: exercise.localizedTitle, status: status, checks: checks,
            runs: runs.count, seconds: seconds)
        result.platformNote = exercise.localizedPlatformNote
        return result
    }

    /// The race check's message while another check fails.
    static var raceCheckWaits: String {
        L("Not checked: another check fails. ThreadSanitizer looks for data races once every other check passes.",
          "未检查：还有别的检查没通过。其他检查全部通过后，ThreadSanitizer 才会检查数据竞争。")
    }

    /// A check whose requirements did not all pass keeps "passed" but earns nothing, and says why.
    static func withholdPointsOfUnmetRequirements(_ checks: inout [CheckResult], exercise: Rubric.Exercise) {
        for (index, check) in exercise.checks.enumerated() {
            let unmet = (check.requires ?? []).compactMap { name in checks.first { $0.test == name && !$0.passed } }
            guard checks[index].passed, !unmet.isEmpty else { continue }
            checks[index].earned = 0
            checks[index].withheld = L("Passed, but earns its points only together with \(unmet.map { "\"\($0.title)\"" }.joined(separator: ", ")): code without synchronization can do this by accident.",
                                       "已通过，但只有和\(unmet.map { "“\($0.title)”" }.joined(separator: "、"))一起通过才得分：没有同步的代码也可能碰巧做到这一点。")
        }
    }

    /// What a check that has no result says: it never ran, or how the process ended while it ran.
    static func unfinishedMessage(started: Bool, termination: Termination, deadline: Double) -> String {
        guard started else { return L("The check did not run.", "这项检查没有运行。") }
        switch termination {
        case .timedOut:
            return L("Deadlock suspected in this check: it was still running after \(Int(deadline)) s and was stopped. Look for a wait that is never signalled, a lock taken twice, or sync onto the queue you are already on.",
                     "疑似死锁：这项检查运行了 \(Int(deadline)) 秒仍未结束，已被停止。检查有没有永远等不到 signal 的等待、被同一线程加了两次的锁，或者 sync 到当前所在的队列。")
        case .signalled(let signal):
            return L("Crashed with signal \(signal) while this check was running: \(crashExplanation(signal)).", "运行这项检查时崩溃（信号 \(signal)）：\(crashExplanation(signal))。")
        case .exited(let code), .exitedEarly(let code):
            return L("The process exited with status \(code) before the check finished: something in your code called exit(). A check passes only when it runs to its end.",
                     "检查结束前进程以状态 \(code) 退出：你的代码调用了 exit()。检查只有运行到最后才算通过。")
        case .outputLimitExceeded:
            return L("Output limit exceeded: more than \(ChildLimits(deadline: 0).outputLimit >> 20) MB were printed while this check was running, and it was stopped. Look for a print in a loop.",
                     "输出超限：这项检查运行时打印了超过 \(ChildLimits(deadline: 0).outputLimit >> 20) MB，已被停止。找找循环里的 print。")
        case .interrupted:
            return L("Interrupted while this check was running.", "运行这项检查时被中断。")
        case .stoppedAfterWork:
            return L("The check did not finish: the suite stopped while it was running.", "检查没有结束：它运行时测试套件停止了。")
        }
    }

    static func status(checks: [CheckResult], runs: [EventStream], terminations: [Termination], deadline: Double) -> ExerciseStatus {
        for (run, termination) in zip(runs, terminations) {
            let running = run.unfinished.first?.displayName
            switch termination {
            case .timedOut, .interrupted:
                return .timedOut(runningTest: running, seconds: deadline)
            case .signalled(let signal):
                return .crashed(signal: signal, runningTest: running)
            case .outputLimitExceeded:
                return .outputLimitExceeded(runningTest: running)
            case .exitedEarly(let code):
                return .exitedEarly(code: code, runningTest: running)
            case .exited(let code) where !run.runEnded:
                return .exitedEarly(code: code, runningTest: running)
            case .exited, .stoppedAfterWork:
                break
            }
        }
        if let failing = checks.first(where: { !$0.passed }) { return .inProgress(firstFailing: failing.title) }
        return .complete
    }

    /// The result of an exercise that did not compile: every check fails at the error.
    static func doesNotCompile(_ exercise: Rubric.Exercise, _ error: CompileError) -> ExerciseResult {
        ExerciseResult(
            name: exercise.name, title: exercise.localizedTitle, status: .doesNotCompile(error),
            checks: exercise.checks.map {
                CheckResult(test: $0.test, title: $0.isRaceCheck ? Rubric.raceCheckTitle : $0.test, points: $0.points, earned: 0, passed: false,
                            message: L("does not compile", "编译失败"), file: error.file, line: error.line)
            }, runs: 0, seconds: 0)
    }

    /// A word on what usually causes a signal, for the learner.
    public static func crashExplanation(_ signal: Int32) -> String {
        switch signal {
        case SIGSEGV, SIGBUS: L("a memory error: usually two threads changed the same storage at once without protection",
                                "内存错误：通常是两个线程在没有保护的情况下同时修改了同一块存储")
        case SIGILL, SIGTRAP: L("a Swift runtime trap: a force unwrap of nil, an index out of range, a precondition, or DispatchGroup.leave() called more often than enter()",
                                "Swift 运行时陷阱：强制解包了 nil、下标越界、precondition 失败，或者 DispatchGroup.leave() 比 enter() 调用得多")
        case SIGABRT: L("an abort: often a fatalError or an unbalanced DispatchGroup/semaphore", "abort：常见原因是 fatalError，或 DispatchGroup/信号量不平衡")
        case SIGKILL: L("killed: the process ran out of time or memory", "被杀死：进程超时或内存耗尽")
        default: L("the process died", "进程意外终止")
        }
    }
}

/// What this platform's suites can observe.
public enum Platform {
    /// Apple platforms have real key-value observing; swift-corelibs-foundation does not, so on
    /// Linux some properties (the order of an operation's willChangeValue announcements) cannot be checked.
    public static var checksEverything: Bool {
        #if canImport(ObjectiveC)
        true
        #else
        false
        #endif
    }

    public static var name: String {
        #if os(macOS)
        "macOS"
        #elseif os(Linux)
        "Linux"
        #else
        "this platform"
        #endif
    }
}
