import Foundation

/// The race check's verdict on one exercise from its ThreadSanitizer runs. It fails closed: "no
/// race" only on evidence that the sanitized run ended normally, ran every check of the
/// exercise, and that both race canaries' reports were found and read in every process the run
/// started; a race only with a frame in the exercise's own code, named so that no other exercise
/// in the same process could be meant. Anything else is "could not run", with what was observed.
enum SanitizedRunVerdict {
    /// `filesOf` gives another exercise's source files, for the exercises a run's process shared
    /// (`SuiteRun.sharedWith`).
    static func verdict(for exercise: Rubric.Exercise, runs: [SuiteRun], files: [String],
                        filesOf: (String) -> [String] = { _ in [] }) -> ExerciseResult.RaceVerdict {
        guard !runs.isEmpty else {
            return .couldNotRun(reason: L("no ThreadSanitizer run took place", "没有进行 ThreadSanitizer 运行"))
        }
        // A base name that another exercise of the same process also has cannot be attributed
        // (the grading session runs such an exercise's suite alone; this holds if it could not).
        for run in runs where !run.sharedWith.isEmpty {
            let shared = SanitizerReport.sharedBaseNames(in: run.sanitizerText, files: files, otherFiles: run.sharedWith.flatMap(filesOf))
            if !shared.isEmpty {
                let names = shared.joined(separator: ", ")
                return .couldNotRun(reason: L("ThreadSanitizer named \(names) by its base name only, and another exercise whose suite ran in the same process has a file of that name, so the grader cannot tell whose code raced",
                                              "ThreadSanitizer 只给出了文件名 \(shared.joined(separator: "、"))，而在同一进程里运行的另一个练习也有同名文件，评分程序无法判断是谁的代码发生了竞争"))
            }
        }
        // A data race outranks everything else that went wrong (it is often its cause). Only a
        // report with a frame in the exercise's own code is the learner's: a race inside the
        // toolchain's libraries or the test support is not theirs to fix.
        let findings = runs.flatMap { SanitizerReport.findings(in: $0.sanitizerText, exercise: exercise.name, files: files) }
        if let race = findings.first(where: { $0.file != nil }) { return .race(race) }

        for run in runs {
            if run.stream.declared.isEmpty || !run.stream.runStarted {
                if let error = startupError(in: run.outputTail) {
                    return .couldNotRun(reason: L("ThreadSanitizer could not start (\(error))", "ThreadSanitizer 无法启动（\(error)）"))
                }
                return .couldNotRun(reason: L("the ThreadSanitizer build of the tests ran no test (\(lastLine(of: run.outputTail)))",
                                              "ThreadSanitizer 版本的测试没有运行任何测试（\(lastLine(of: run.outputTail))）"))
            }
            if let problem = abnormalEnding(run) { return .couldNotRun(reason: problem) }
        }
        let declared = runs.first { !$0.stream.declared.isEmpty }?.stream.declared ?? []
        let merged = runs.map(\.stream)
        let unfinished = declared.filter { test in !merged.contains { $0.runs[test.id]?.ended == true } }
        if let first = unfinished.first {
            return .couldNotRun(reason: L("the ThreadSanitizer run ended \(declared.count - unfinished.count) of \(declared.count) checks; \"\(first.displayName)\" has no result",
                                          "ThreadSanitizer 运行只结束了 \(declared.count) 项检查中的 \(declared.count - unfinished.count) 项；“\(first.displayName)”没有结果"))
        }
        // A report whose frames name no Swift file and line (a symbolizer that gave names only)
        // may be the learner's race: nothing in it says whose, so nothing proves there was none.
        if let summary = runs.lazy.flatMap({ SanitizerReport.reportsWithoutSourceLines(in: $0.sanitizerText) }).first {
            return .couldNotRun(reason: L("ThreadSanitizer reported \"\(summary)\" without naming a Swift file and line in it, so the grader cannot tell whose code it is about",
                                          "ThreadSanitizer 报告了“\(summary)”，但没有给出任何 Swift 文件和行号，评分程序无法判断它涉及谁的代码"))
        }
        let missing = runs.reduce(into: Set<RaceCanaryKind>()) { $0.formUnion($1.missingCanaries) }
        if missing.contains(.testProcess) {
            return .couldNotRun(reason: L("no report of the known race in the test process naming RaceCanary.swift and a line was found, so the grader cannot tell that ThreadSanitizer ran, that its reports reach it and that they name files and lines",
                                          "没有找到测试进程中那个已知竞争、并给出 RaceCanary.swift 和行号的报告，评分程序无法确认 ThreadSanitizer 运行了、它的报告能送到、而且报告里有文件和行号"))
        }
        if missing.contains(.isolatedCheck) {
            return .couldNotRun(reason: L("no report of the known race in an isolated check's child process naming RaceCanary.swift and a line was found, so ThreadSanitizer may not have run in the isolated checks, or not named files and lines there",
                                          "没有找到隔离检查子进程中那个已知竞争、并给出 RaceCanary.swift 和行号的报告，ThreadSanitizer 可能没有在隔离检查里运行，或者没有在那里给出文件和行号"))
        }
        return .noRace
    }

    /// An exercise whose ThreadSanitizer build failed, though its ordinary build passed.
    static func buildFailed(_ error: CompileError) -> String {
        L("the ThreadSanitizer build failed at \(error.file):\(error.line): \(error.message)",
          "ThreadSanitizer 版本的构建失败，位置 \(error.file):\(error.line)：\(error.message)")
    }

    /// How a sanitized run ended, when that is not a normal end of a test run.
    static func abnormalEnding(_ run: SuiteRun) -> String? {
        let running = run.stream.unfinished.first.map { L(" while \"\($0.displayName)\" ran", "（当时在运行“\($0.displayName)”）") } ?? ""
        switch run.termination {
        case .exited(0), .exited(1), .stoppedAfterWork:
            return nil
        case .exited(let code), .exitedEarly(let code):
            return L("the ThreadSanitizer run exited with status \(code) before its end\(running)", "ThreadSanitizer 运行在结束前以状态 \(code) 退出\(running)")
        case .signalled(let signal):
            return L("the ThreadSanitizer run crashed with signal \(signal)\(running)", "ThreadSanitizer 运行崩溃（信号 \(signal)）\(running)")
        case .timedOut:
            return L("the ThreadSanitizer run did not end before its deadline\(running)", "ThreadSanitizer 运行在期限前没有结束\(running)")
        case .outputLimitExceeded:
            return L("the ThreadSanitizer run printed more than the output limit\(running)", "ThreadSanitizer 运行的输出超过上限\(running)")
        case .interrupted:
            return L("the ThreadSanitizer run was interrupted", "ThreadSanitizer 运行被中断")
        }
    }

    /// The sanitizer's own complaint when it could not start: "ERROR: ThreadSanitizer setrlimit()
    /// failed 22" (a limited address space, measured here under `ulimit -v`), "ThreadSanitizer:
    /// ERROR: expected '=' in TSAN_OPTIONS" (an option it could not parse), "FATAL: ThreadSanitizer:
    /// unexpected memory mapping", "Interceptors are not working" (loaded too late, on Apple platforms).
    static func startupError(in output: String) -> String? {
        for line in output.split(separator: "\n") {
            let text = String(line).trimmingCharacters(in: .whitespaces)
            guard text.contains("Sanitizer") || text.contains("Interceptors are not working") else { continue }
            if text.contains("ERROR") || text.contains("FATAL") || text.contains("failed") || text.contains("not working") {
                // Drop the "==1234==" pid prefix.
                return text.replacingOccurrences(of: #"^==\d+=="#, with: "", options: .regularExpression)
            }
        }
        return nil
    }

    static func lastLine(of output: String) -> String {
        output.split(separator: "\n").last.map(String.init) ?? L("no output", "没有输出")
    }
}
