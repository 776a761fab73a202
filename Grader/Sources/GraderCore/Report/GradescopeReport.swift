import Foundation

/// Gradescope's `results.json` (`--gradescope FILE`), per its "Autograder Specifications"
/// (gradescope-autograders.readthedocs.io/en/latest/specs/, source gradescope/autograder_samples
/// `docs/specs.md`): a top-level `score` (which overrides the sum of the tests), `execution_time`
/// in seconds, `output` for the whole submission, and `tests`, each with `name`, `number`,
/// `score`, `max_score`, `status` (`passed` or `failed`: "Test case status"), `output`, `tags`
/// and `visibility`. Everything a student should see is in `output` fields: Gradescope shows
/// run_autograder's stdout to instructors only. The copied-solution and modified-file flags go
/// in `extra_data`, stored for instructors and not shown.
public enum GradescopeReport {
    struct Document: Encodable {
        var score: Int
        var execution_time: Int
        var output: String
        var visibility = "visible"
        var stdout_visibility = "hidden"
        var extra_data: ExtraData
        var tests: [Test]
    }

    struct ExtraData: Encodable {
        var grader_status: String
        var max_score: Int
        var copied_from_solution: [String]
        var modified_files: [String]
    }

    struct Test: Encodable {
        var name: String
        var number: String
        var score: Int
        var max_score: Int
        var status: String
        var output: String
        var tags: [String]
        var visibility = "visible"
    }

    public static func encode(_ report: GradeReport) throws -> Data {
        let tests = PlatformTest.all(in: report).map {
            Test(name: $0.name, number: $0.number, score: $0.score, max_score: $0.maxScore,
                 status: $0.passed ? "passed" : "failed", output: $0.message ?? "", tags: [$0.exercise])
        }
        let document = Document(
            score: tests.reduce(0) { $0 + $1.score }, execution_time: Int(report.seconds.rounded(.up)),
            output: PlatformTest.summary(of: report),
            extra_data: ExtraData(
                grader_status: report.allComplete ? "complete" : "not_complete", max_score: report.totalPoints,
                copied_from_solution: report.exercises.filter(\.copiedFromSolution).map(\.name),
                modified_files: report.modifiedFiles),
            tests: tests)
        return try encode(document)
    }

    /// The result when grading could not run at all: score 0, one failed test worth the whole
    /// course that says why, and the reason in the submission's output.
    public static func error(_ message: String, maxScore: Int, seconds: Double = 0) throws -> Data {
        let output = L("Grading could not run: \(message)", "评分无法运行：\(message)")
        let document = Document(
            score: 0, execution_time: Int(seconds.rounded(.up)), output: output,
            extra_data: ExtraData(grader_status: "error", max_score: maxScore, copied_from_solution: [], modified_files: []),
            tests: [Test(name: L("Grading", "评分"), number: "0.1", score: 0, max_score: maxScore,
                         status: "failed", output: output, tags: ["grading"])])
        return try encode(document)
    }

    static func encode(_ document: Document) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }
}
