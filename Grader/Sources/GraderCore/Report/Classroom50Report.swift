import Foundation

/// Classroom 50's `result.json` (`--classroom50 FILE`), the contract every Classroom 50
/// autograder must satisfy (foundation50/classroom50, wiki "Advanced-Autograding", section
/// "The result.json contract"): `schema` exactly `classroom50/result/v1`; the identity fields
/// from the runner's environment (`CLASSROOM`, `ASSIGNMENT`, `SUBMISSION_TAG`, `COMMIT_URL`,
/// `RELEASE_URL`, `REVIEW_URL`); `datetime`, the submission instant (the graded commit's
/// committer date, UTC ISO 8601: `SUBMISSION_DATETIME` when the caller sets it, else the grading
/// time); `score` and `max-score`, the sums over `tests`; and one test per check with
/// `test-name`, `passed`, `score`, `max-score`, plus diagnostic fields the runner keeps verbatim.
/// `owner` and `assignment_type` are stamped by the runner and left out.
public enum Classroom50Report {
    public static let schema = "classroom50/result/v1"

    struct Document: Encodable {
        var schema = Classroom50Report.schema
        var classroom: String
        var assignment: String
        var submission: String
        var commit: String
        var release: String
        var review: String
        var datetime: String
        var graded_at: String
        var score: Int
        var max_score: Int
        var tests: [Test]

        enum CodingKeys: String, CodingKey {
            case schema, classroom, assignment, submission, commit, release, review, datetime, graded_at, score, tests
            case max_score = "max-score"
        }
    }

    struct Test: Encodable {
        var test_name: String
        var passed: Bool
        var score: Int
        var max_score: Int
        // Diagnostic fields (kept verbatim by the runner).
        var exercise: String
        var check: String
        var message: String?

        enum CodingKeys: String, CodingKey {
            case passed, score, exercise, check, message
            case test_name = "test-name"
            case max_score = "max-score"
        }
    }

    public static func encode(_ report: GradeReport, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Data {
        let tests = PlatformTest.all(in: report).map {
            Test(test_name: $0.name, passed: $0.passed, score: $0.score, max_score: $0.maxScore,
                 exercise: $0.exercise, check: $0.test, message: $0.message)
        }
        return try encode(document(
            tests: tests, date: report.date, environment: environment))
    }

    /// The result when grading could not run at all: one failed test that says why, worth the
    /// whole course, so the score reads 0 of the total rather than a vacuous 0 of 0.
    public static func error(_ message: String, maxScore: Int, date: Date = Date(),
                             environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Data {
        let test = Test(test_name: L("Grading", "评分"), passed: false, score: 0, max_score: maxScore,
                        exercise: "", check: "grading", message: message)
        return try encode(document(tests: [test], date: date, environment: environment))
    }

    static func document(tests: [Test], date: Date, environment: [String: String]) -> Document {
        let commit = environment["COMMIT_URL"] ?? ""
        let gradedAt = timestamp(date)
        return Document(
            classroom: environment["CLASSROOM"] ?? "", assignment: environment["ASSIGNMENT"] ?? "",
            submission: environment["SUBMISSION_TAG"] ?? "", commit: commit,
            release: environment["RELEASE_URL"] ?? "",
            review: environment["REVIEW_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? commit,
            datetime: environment["SUBMISSION_DATETIME"].flatMap { $0.isEmpty ? nil : $0 } ?? gradedAt,
            graded_at: gradedAt,
            score: tests.reduce(0) { $0 + $1.score }, max_score: tests.reduce(0) { $0 + $1.max_score },
            tests: tests)
    }

    /// UTC ISO 8601 to the second, as the contract's examples write it (`2026-06-01T14:32:01Z`).
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    static func encode(_ document: Document) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }
}
