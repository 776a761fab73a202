import Foundation

/// The machine-readable result (`--json FILE`); the schema is documented in Instructors/README.md.
public enum JSONReport {
    public static let schemaVersion = 1

    struct Document: Encodable {
        var schemaVersion: Int
        var mode: String
        var sanitize: Bool
        var repetitions: Int
        var date: Date
        var points: Int
        var totalPoints: Int
        var complete: Bool
        var seconds: Double
        var modifiedFiles: [String]
        var exercises: [Exercise]
    }

    struct Exercise: Encodable {
        var name: String
        var title: String
        var status: String
        var detail: String?
        var file: String?
        var line: Int?
        var points: Int
        var totalPoints: Int
        var passedChecks: Int
        var totalChecks: Int
        var runs: Int
        var seconds: Double
        var copiedFromSolution: Bool
        var checks: [CheckResult]
    }

    public static func encode(_ report: GradeReport, repetitions: Int) throws -> Data {
        let document = Document(
            schemaVersion: schemaVersion, mode: report.mode.solutions ? "solutions" : "exercises",
            sanitize: report.mode.sanitize, repetitions: repetitions, date: report.date,
            points: report.points, totalPoints: report.totalPoints, complete: report.allComplete,
            seconds: rounded(report.seconds), modifiedFiles: report.modifiedFiles,
            exercises: report.exercises.map { exercise in
                let (detail, file, line) = describe(exercise.status)
                return Exercise(
                    name: exercise.name, title: exercise.title, status: exercise.status.keyword,
                    detail: detail, file: file, line: line, points: exercise.points,
                    totalPoints: exercise.totalPoints, passedChecks: exercise.passedChecks,
                    totalChecks: exercise.checks.count, runs: exercise.runs,
                    seconds: rounded(exercise.seconds), copiedFromSolution: exercise.copiedFromSolution,
                    checks: exercise.checks)
            })
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(document)
    }

    static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    /// A one-line explanation of a status, and the file and line it points at.
    static func describe(_ status: ExerciseStatus) -> (String?, String?, Int?) {
        switch status {
        case .complete: (nil, nil, nil)
        case .completeOnThisPlatform(let note): ("complete on \(Platform.name); \(note)", nil, nil)
        case .exitedEarly(let code, let running):
            ("the process exited with status \(code) in \(running ?? "the suite") before the check finished: something in your code called exit()", nil, nil)
        case .outputLimitExceeded(let running):
            ("output limit exceeded in \(running ?? "the suite"): it printed more than \(ChildLimits(deadline: 0).outputLimit >> 20) MB and was stopped", nil, nil)
        case .inProgress(let failing): ("first failing check: \(failing)", nil, nil)
        case .doesNotCompile(let error): (error.message, error.file, error.line)
        case .timedOut(let running, let seconds):
            ("deadlock suspected in \(running ?? "the suite"): stopped after \(Int(seconds)) s", nil, nil)
        case .crashed(let signal, let running):
            ("\(signal == 0 ? "exited early" : "signal \(signal)") in \(running ?? "the suite"): \(Scoring.crashExplanation(signal))", nil, nil)
        case .dataRace(let finding): ("ThreadSanitizer: \(finding.summary)", finding.file, finding.line)
        case .lookingForRaces: ("every other check passes; the race check had not ended", nil, nil)
        case .raceCheckNotRun(let reason): ("every other check passes; the race check did not run (\(reason)), so its points are not earned", nil, nil)
        case .raceCheckCouldNotRun(let reason): ("every other check passes; the race check could not run (\(reason)), so its points are not earned", nil, nil)
        }
    }
}
