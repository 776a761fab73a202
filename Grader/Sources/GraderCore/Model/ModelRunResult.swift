import Foundation

/// What a model runner (`model-<Exercise>`, `Model/KataModel/ModelRunner.swift`) reports, as the
/// grader reads it. The same JSON as the runner's `ModelRunReport`; the grader does not link the
/// model's runtime, so it declares the fields it reads.
struct ModelRunReport: Codable, Equatable, Sendable {
    struct Check: Codable, Equatable, Sendable {
        var verdict: String
        var index: Int
        var name: String
        /// In the language asked for; older runners wrote none.
        var title: String?
        /// The graded stress checks whose property it states.
        var stress: [String]?
        var schedules: Int
        var seconds: Double
        var number: UInt64?
        var code: String?
        var picture: String?
    }

    var exercise: String
    var budget: Int
    var checks: [Check]
    /// The check the runner was exploring when it wrote the report last; set when it died there.
    var running: Check?
}

/// The three answers a modeled run can give. Anything else (a build that failed, a runner that
/// crashed, timed out or wrote no report) is `cannotRun`: never a pass.
enum ModelVerdict: Equatable, Sendable {
    case report(ModelRunReport)
    case notApplicable([ModelApplicability.Use])
    case cannotRun(String)
}

/// Reads a runner's end: its report when it exited 0 and wrote one that makes sense, else why not.
enum ModelRunResult {
    static let verdicts: Set<String> = ["pass", "fail", "undecided", "crash"]

    static func read(termination: Termination, report: Data?, output: String, exercise: String, mayBeEmpty: Bool = false) -> ModelVerdict {
        let during = output.split(separator: "\n").last { $0.hasPrefix("model: check ") }
            .map { L(" during check \($0.dropFirst("model: check ".count))", "（在检查 \($0.dropFirst("model: check ".count)) 中）") } ?? ""
        let said = output.split(separator: "\n").filter { !$0.hasPrefix("model: check ") }
        // A trap's own line ("Fatal error: …", "Precondition failed: …") when there is one.
        let traps = said.filter { line in ["Fatal error", "Precondition failed", "Assertion failed"].contains { line.contains($0) } }
        let tail = (traps.isEmpty ? said.suffix(8) : traps.prefix(3)).joined(separator: "\n")
        let words = tail.isEmpty ? "" : L("\nIts last output:\n", "\n它最后的输出：\n") + tail
        switch termination {
        case .exited(0), .stoppedAfterWork: break
        // SIGILL, SIGTRAP, SIGABRT: what a Swift trap raises (Linux, Apple Silicon, a failed
        // precondition in C); any other signal is only named, its cause not observed.
        case .signalled(let signal) where [4, 5, 6].contains(signal):
            if let crash = crashInCheck(report: report, output: output, signal: signal, trap: traps.prefix(3).joined(separator: "\n"), exercise: exercise) {
                return .report(crash)
            }
            return .cannotRun(L("the model's run of your code crashed (signal \(signal))\(during): a trap in the code under test (a force unwrap, a precondition, an index out of range) ends the run before any verdict.",
                                "模型运行你的代码时崩溃（信号 \(signal)）\(during)：被测代码里的陷阱（强制解包、precondition、下标越界）让运行在给出结论之前就结束了。") + words)
        case .signalled(let signal):
            return .cannotRun(L("the model's run of your code was ended by signal \(signal)\(during), before any verdict.",
                                "模型运行你的代码时被信号 \(signal) 终止\(during)，没有给出结论。") + words)
        case .timedOut:
            return .cannotRun(L("the model's run of your code did not end in time\(during).", "模型运行你的代码没有按时结束\(during)。") + words)
        case .interrupted:
            return .cannotRun(L("interrupted", "已中断"))
        default:
            return .cannotRun(L("the model's run of your code ended without a verdict (\(termination))\(during).", "模型运行你的代码时没有给出结论就结束了（\(termination)）\(during)。") + words)
        }
        guard let report, let decoded = try? JSONDecoder().decode(ModelRunReport.self, from: report) else {
            return .cannotRun(L("the model's runner wrote no report\(during).", "模型的运行程序没有写出报告\(during)。") + words)
        }
        guard decoded.exercise == exercise, mayBeEmpty || !decoded.checks.isEmpty, decoded.checks.allSatisfy({ verdicts.contains($0.verdict) }) else {
            return .cannotRun(L("the model's runner wrote a report the grader cannot read.", "模型的运行程序写出的报告无法读取。"))
        }
        return .report(decoded)
    }
}

extension ModelRunResult {
    /// A trap in the code under test, inside a known schedule of a known check: the model runs one
    /// thread at a time and replays a schedule exactly, so that schedule crashes the code every
    /// time, and the real threads can take the same order. Said as that check's failure (verdict
    /// "crash", the trap's words as its picture). Nil when the run cannot say where it was, or
    /// when the trap is in the model's own code (its runtime or twins), which is no fault of
    /// the learner's.
    static func crashInCheck(report: Data?, output: String, signal: Int32, trap: String, exercise: String) -> ModelRunReport? {
        guard let report, var decoded = try? JSONDecoder().decode(ModelRunReport.self, from: report),
              decoded.exercise == exercise, var running = decoded.running,
              let scheduleLine = output.split(separator: "\n").last(where: { $0.hasPrefix("model: schedule ") }),
              let schedule = UInt64(scheduleLine.dropFirst("model: schedule ".count)),
              !["KataModel/", "Twins/"].contains(where: trap.contains)
        else { return nil }
        running.verdict = "crash"
        running.number = schedule
        running.schedules = Int(min(schedule, UInt64(Int.max - 1))) + 1
        let words = trap.isEmpty ? L("(it printed no message)", "（没有输出消息）") : trap
        running.picture = L("✗ Your code crashed (signal \(signal)) in schedule \(schedule): a trap (a force unwrap, an index out of range, a precondition) under this order of the threads. Its message:",
                            "✗ 你的代码在调度 \(schedule) 中崩溃（信号 \(signal)）：在这种线程顺序下触发了陷阱（强制解包、下标越界、precondition）。它的消息：")
            + "\n" + words
        decoded.checks.append(running)
        decoded.running = nil
        return decoded
    }
}

/// The modeled build's compiler errors: a member a twin lacks is "not applicable"; any other
/// error is a build that failed.
enum ModelBuildErrors {
    static let twins: Set<String> = [
        "DispatchQueue", "DispatchGroup", "DispatchSemaphore", "DispatchWorkItem", "DispatchTime",
        "NSLock", "NSRecursiveLock", "NSCondition", "Mutex",
    ]

    static func read(_ output: String, exercise: String, root: String) -> ModelVerdict {
        let errors = CompilerDiagnostics.errors(in: output, exercises: [exercise], root: root)
        // Only an error in the graded files is the learner's; one in the twins, the checks or the
        // runtime is the model's own, and must not be blamed on them.
        let learners = errors.filter { isGradedFile($0.file, exercise: exercise) }
        var uses: [ModelApplicability.Use] = []
        for error in learners {
            guard let member = missingMember(error.message) else { continue }
            let use = ModelApplicability.Use(what: member, file: learnerPath(error.file, exercise: exercise), line: error.line)
            if !uses.contains(where: { $0.what == use.what }) { uses.append(use) }
        }
        if !uses.isEmpty { return .notApplicable(uses) }
        if let first = learners.first {
            return .cannotRun(
                L("your code does not compile in the modeled build (with the twins of the synchronization types):\n",
                  "你的代码在模型构建中（换成同步类型的替身后）无法编译：\n")
                    + "\(learnerPath(first.file, exercise: exercise)):\(first.line): error: \(first.message)")
        }
        if let first = errors.first {
            return .cannotRun(
                L("the model's own code (its twins, checks or runtime) did not compile with this toolchain; nothing is wrong with yours:\n",
                  "模型自己的代码（替身、检查或运行时）无法用这个工具链编译；你的代码没有问题：\n")
                    + "\(first.file):\(first.line): error: \(first.message)")
        }
        let tail = output.split(separator: "\n").suffix(10).joined(separator: "\n")
        return .cannotRun(L("the modeled build failed:\n", "模型构建失败：\n") + tail)
    }

    /// A file of the graded code, as the modeled build names it (`Model/Learner/<Exercise>/Exercise/…`,
    /// `…/Solution/…`, `…/Variants/…`).
    static func isGradedFile(_ path: String, exercise: String) -> Bool {
        ["Exercise/", "Solution/", "Variants/"].contains { path.contains("Model/Learner/\(exercise)/" + $0) }
    }

    /// "value of type 'DispatchQueue' has no member 'label'" → `DispatchQueue.label`.
    static func missingMember(_ message: String) -> String? {
        let pattern = #"type '([A-Za-z]+)(<[^']*>)?' has no member '([A-Za-z_][A-Za-z0-9_]*)'"#
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: message, range: NSRange(message.startIndex..., in: message)),
              let type = Range(match.range(at: 1), in: message), let member = Range(match.range(at: 3), in: message),
              twins.contains(String(message[type]))
        else { return nil }
        return "\(message[type]).\(message[member])"
    }

    /// The path a learner knows: `Model/Learner/<Exercise>/Exercise/F.swift` is
    /// `Exercises/<Exercise>/F.swift`.
    static func learnerPath(_ path: String, exercise: String) -> String {
        let prefix = "Model/Learner/\(exercise)/"
        guard let range = path.range(of: prefix) else { return path }
        let rest = path[range.upperBound...]
        for (link, folder) in [("Exercise/", "Exercises/\(exercise)/"), ("Solution/", "Solutions/\(exercise)/"), ("Variants/", "Grader/Variants/\(exercise)/")]
            where rest.hasPrefix(link) {
            return folder + rest.dropFirst(link.count)
        }
        return String(path[range.lowerBound...])
    }
}
