import Foundation

/// GitHub Classroom's runner result (`--classroom FILE`): its grading reporter sums a `score` per
/// test, so an assignment shows partial credit per check. One test per check, its points as
/// its score; `max_score` is the grade's total.
public enum ClassroomReport {
    struct Document: Encodable {
        var version = 1
        var status: String
        var max_score: Int
        var tests: [Test]
    }

    struct Test: Encodable {
        var name: String
        var status: String
        var score: Int
        var max_score: Int
        var message: String?
    }

    public static func encode(_ report: GradeReport) throws -> Data {
        let tests = report.exercises.flatMap { exercise in
            exercise.checks.map { check in
                Test(name: "\(exercise.name): \(check.title)", status: check.passed ? "pass" : "fail",
                     score: check.earned, max_score: check.points,
                     message: check.passed ? check.withheld : (check.message ?? JSONReport.describe(exercise.status).0))
            }
        }
        let document = Document(status: report.allComplete ? "pass" : "fail", max_score: report.totalPoints, tests: tests)
        return try encoder.encode(document)
    }

    /// The result when grading could not run at all.
    public static func error(_ message: String, maxScore: Int) throws -> Data {
        try encoder.encode(Document(status: "error", max_score: maxScore,
                                    tests: [Test(name: "grading", status: "error", score: 0, max_score: maxScore, message: message)]))
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
