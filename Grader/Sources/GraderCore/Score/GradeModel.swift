import Foundation

/// The result of one graded check, over every repetition.
public struct CheckResult: Equatable, Sendable, Codable {
    public var test: String
    public var title: String
    public var points: Int
    public var earned: Int
    public var passed: Bool
    /// The first problem seen, when the check did not pass.
    public var message: String?
    public var file: String?
    public var line: Int?
    /// Why a check that passed earns nothing: the checks it requires did not pass.
    public var withheld: String?
}

/// Where one exercise stands.
public enum ExerciseStatus: Equatable, Sendable {
    case complete
    /// Every check passed, but this platform cannot observe everything the exercise asks
    /// (`note` says what only Apple platforms check).
    case completeOnThisPlatform(note: String)
    /// Some checks fail; the first failing check, in suite order.
    case inProgress(firstFailing: String)
    case doesNotCompile(CompileError)
    /// Killed at the deadline; `runningTest` is the check that was running.
    case timedOut(runningTest: String?, seconds: Double)
    /// The suite's process died; `runningTest` is the check that was running.
    case crashed(signal: Int32, runningTest: String?)
    /// The test process exited (status `code`) before its run ended: learner code called exit().
    case exitedEarly(code: Int32, runningTest: String?)
    /// The process printed more than the output limit and was stopped.
    case outputLimitExceeded(runningTest: String?)
    /// ThreadSanitizer reported a data race in the exercise's code; every other check may pass.
    case dataRace(SanitizerFinding)
    /// Every other check passed; the race check is running (shown before its verdict, never final
    /// unless the run was interrupted).
    case lookingForRaces
    /// Every other check passed, but the race check did not run (`reason`: `--no-race-check`).
    case raceCheckNotRun(reason: String)
    /// Every other check passed, but the race check could not judge: ThreadSanitizer did not
    /// start, its run crashed or did not run every check, or its reports could not be read
    /// (`reason` says which). Earns nothing and is never remembered.
    case raceCheckCouldNotRun(reason: String)

    /// A stable word for JSON and scripts.
    public var keyword: String {
        switch self {
        case .complete: "complete"
        case .completeOnThisPlatform: "complete_on_\(Platform.name.lowercased())"
        case .exitedEarly: "exited_early"
        case .outputLimitExceeded: "output_limit_exceeded"
        case .inProgress: "in_progress"
        case .doesNotCompile: "does_not_compile"
        case .timedOut: "timed_out"
        case .crashed: "crashed"
        case .dataRace: "data_race"
        case .lookingForRaces: "looking_for_races"
        case .raceCheckNotRun: "race_check_not_run"
        case .raceCheckCouldNotRun: "race_check_could_not_run"
        }
    }

    /// The status as the learner reads it, in the current language.
    public var word: String { Self.word(forKeyword: keyword) }

    /// The word for a keyword (as the history keeps them).
    public static func word(forKeyword keyword: String) -> String {
        return switch keyword {
        case "complete": L("complete", "已完成")
        case "exited_early": L("exited early", "提前退出")
        case "output_limit_exceeded": L("output limit exceeded", "输出超限")
        case "in_progress": L("in progress", "进行中")
        case "does_not_compile": L("does not compile", "编译失败")
        case "timed_out": L("timed out", "超时")
        case "crashed": L("crashed", "崩溃")
        case "data_race": L("data race", "数据竞争")
        case "looking_for_races": L("looking for data races…", "正在检查数据竞争…")
        case "race_check_not_run": L("race check not run", "未做数据竞争检查")
        case "race_check_could_not_run": L("race check could not run", "数据竞争检查无法运行")
        case "complete_on_linux": L("complete on Linux", "在 Linux 上已完成")
        case "complete_on_macos": L("complete on macOS", "在 macOS 上已完成")
        default: keyword.replacingOccurrences(of: "_", with: " ")
        }
    }
}

/// A data race that ThreadSanitizer reported, at the first frame in the exercise's own code.
public struct SanitizerFinding: Equatable, Sendable, Codable {
    public var summary: String
    public var file: String?
    public var line: Int?
    /// The accesses that raced (usually two), each with the learner's frames.
    public var accesses: [Access] = []
    /// Other files of the exercise with the same base name as `file`: on Apple platforms a frame
    /// names a file by its base name only, so the race may be in one of these instead.
    public var sameBaseName: [String] = []
    /// The folder of ThreadSanitizer's report files, relative to the course.
    public var reportFolder: String?

    public init(summary: String, file: String?, line: Int?, accesses: [Access] = [], sameBaseName: [String] = []) {
        self.summary = summary
        self.file = file
        self.line = line
        self.accesses = accesses
        self.sameBaseName = sameBaseName
    }

    /// One side of the race: what it did ("Write of size 8 at 0x… by thread T6"), on which thread,
    /// and its frames in the exercise's code, innermost first.
    public struct Access: Equatable, Sendable, Codable {
        public var what: String
        public var thread: String
        public var ownFrames: [Place]
    }

    public struct Place: Equatable, Sendable, Codable {
        public var file: String
        /// `unknownLine` when the symbolizer named the file but no line.
        public var line: Int
        public var function: String

        public static let unknownLine = 0
    }
}

public struct ExerciseResult: Equatable, Sendable {
    public var name: String
    public var title: String
    public var status: ExerciseStatus
    public var checks: [CheckResult]
    /// Suite runs done (with `--repeat N`, N unless one was cut short).
    public var runs: Int
    /// Time its checks took, all repetitions together.
    public var seconds: Double
    /// The checks its suite declared (for verify's comparison with the rubric).
    public var declared: [DeclaredTest] = []
    /// The learner's files are byte for byte the reference solution's (for instructors).
    public var copiedFromSolution = false
    /// What only Apple platforms check (the rubric's), for "complete on Linux".
    public var platformNote: String?
    /// The race check's verdict, once recorded.
    public var raceVerdict: RaceVerdict?
    /// Orders of the synchronization calls that the systematic checks found breaking a property.
    public var orderFindings: [OrderFinding] = []

    public var points: Int { checks.reduce(0) { $0 + $1.earned } }
    public var totalPoints: Int { checks.reduce(0) { $0 + $1.points } }
    public var passedChecks: Int { checks.filter(\.passed).count }
    public var firstFailing: CheckResult? { checks.first { !$0.passed } }
    /// Every check but the race check passed: the race check may run.
    public var otherChecksPass: Bool { checks.allSatisfy { $0.passed || $0.test == Rubric.raceCheckTest } }

    /// What the race check found.
    public enum RaceVerdict: Equatable, Sendable {
        case noRace
        case race(SanitizerFinding)
        /// Not asked for (`--no-race-check`).
        case notRun(reason: String)
        /// Asked for, but it could not judge (`reason` says what was observed).
        case couldNotRun(reason: String)
    }

    /// Records the race check's verdict in its check and in the status. A race is reported
    /// whatever the other checks did (it is often their cause); the check's points are earned
    /// only when every other check passes and ThreadSanitizer found nothing.
    public mutating func record(_ verdict: RaceVerdict) {
        raceVerdict = verdict
        guard let index = checks.firstIndex(where: { $0.test == Rubric.raceCheckTest }) else {
            if case .race(let finding) = verdict { status = .dataRace(finding) }
            return
        }
        let othersPass = otherChecksPass
        switch verdict {
        case .noRace where othersPass:
            checks[index].passed = true
            checks[index].earned = checks[index].points
            checks[index].message = nil
            checks[index].file = nil
            checks[index].line = nil
            if case .lookingForRaces = status {
                status = platformNote.map { Platform.checksEverything ? .complete : .completeOnThisPlatform(note: $0) } ?? .complete
            }
        case .noRace:
            break
        case .race(let finding):
            checks[index].passed = false
            checks[index].earned = 0
            let place = finding.file.map { "\($0):\(finding.line ?? 0)" }
            checks[index].message = L("ThreadSanitizer: \(finding.summary)\(place.map { " at \($0)" } ?? ""): two threads touch that state at once, at least one of them writing, without protection.",
                                      "ThreadSanitizer：\(finding.summaryInChinese)\(place.map { "（\($0)）" } ?? "")：两个线程同时访问这份状态，至少一个在写，而且没有保护。")
            checks[index].file = finding.file
            checks[index].line = finding.line
            switch status {
            case .lookingForRaces, .inProgress, .complete, .completeOnThisPlatform: status = .dataRace(finding)
            default: break
            }
        case .notRun(let reason):
            checks[index].message = L("Not checked: \(reason). No points without it.", "未检查：\(reason)。没有它就没有这项的分数。")
            if case .lookingForRaces = status { status = .raceCheckNotRun(reason: reason) }
        case .couldNotRun(let reason):
            checks[index].passed = false
            checks[index].earned = 0
            checks[index].message = L("The race check could not run: \(reason). It earns no points until ThreadSanitizer runs and its report is read; grade again, and if this stays, run swift run grader \(name) --sanitize --verbose to see its log.",
                                      "数据竞争检查无法运行：\(reason)。在 ThreadSanitizer 运行并读到它的报告之前，这项不得分；请再评一次分，如果一直这样，运行 swift run grader \(name) --sanitize --verbose 查看日志。")
            if case .lookingForRaces = status { status = .raceCheckCouldNotRun(reason: reason) }
        }
    }

    /// Complete, on this platform at least.
    public var isComplete: Bool {
        switch status {
        case .complete, .completeOnThisPlatform: true
        default: false
        }
    }
}

/// A systematic check that an order of the threads' synchronization calls broke: its title, the
/// stress checks it failed, and the command that draws it.
public struct OrderFinding: Equatable, Sendable {
    public var title: String
    public var tests: [String]
    public var replay: String
    /// The order made the code trap rather than break a stated property.
    public var crash: Bool
}

/// The verdicts a grade is still waiting for when it shows the points: the exercises whose
/// systematic checks run now, and those whose race check does.
public struct PendingVerdicts: Sendable, Equatable {
    public var orders: [String]
    public var races: [String]

    public var all: [String] { orders + races.filter { !orders.contains($0) } }
}

/// Everything one grading run found.
public struct GradeReport: Sendable {
    public var mode: BuildMode
    public var exercises: [ExerciseResult]
    /// Files that differ from the committed originals (Tests/, Package.swift, the rubric).
    public var modifiedFiles: [String]
    public var date: Date
    /// Wall time of the whole grading run, build included.
    public var seconds: Double = 0
    /// What the systematic checks said of each exercise they judged (`ModelGate`).
    var modelVerdicts: [String: ModelVerdict] = [:]

    public var points: Int { exercises.reduce(0) { $0 + $1.points } }
    public var totalPoints: Int { exercises.reduce(0) { $0 + $1.totalPoints } }
    public var allComplete: Bool { exercises.allSatisfy(\.isComplete) }
}
