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
    /// ThreadSanitizer reported a data race (with `--sanitize`); every check may still pass.
    case dataRace(SanitizerFinding)

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
        }
    }
}

/// A data race that ThreadSanitizer reported, at the first frame in the exercise's own code.
public struct SanitizerFinding: Equatable, Sendable, Codable {
    public var summary: String
    public var file: String?
    public var line: Int?
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

    public var points: Int { checks.reduce(0) { $0 + $1.earned } }
    public var totalPoints: Int { checks.reduce(0) { $0 + $1.points } }
    public var passedChecks: Int { checks.filter(\.passed).count }
    public var firstFailing: CheckResult? { checks.first { !$0.passed } }
    /// Complete, on this platform at least.
    public var isComplete: Bool {
        switch status {
        case .complete, .completeOnThisPlatform: true
        default: false
        }
    }
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

    public var points: Int { exercises.reduce(0) { $0 + $1.points } }
    public var totalPoints: Int { exercises.reduce(0) { $0 + $1.totalPoints } }
    public var allComplete: Bool { exercises.allSatisfy(\.isComplete) }
}
