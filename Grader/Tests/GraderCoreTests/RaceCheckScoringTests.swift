import Foundation
import Testing
@testable import GraderCore

/// Freedom from data races earns points of its own: the race check is the last check of every
/// exercise, earned only when every other check passes and ThreadSanitizer reports no race in the
/// exercise's code, and said plainly when it did not run.
@Suite("The race check, a check with points")
struct RaceCheckScoringTests {
    /// The fake suite's exercise with the race check at the end.
    static var exercise: Rubric.Exercise {
        var exercise = FakeTestBinary.exercise
        exercise.checks.append(.init(test: Rubric.raceCheckTest, points: 3))
        return exercise
    }

    static func graded(_ scenario: String) throws -> ExerciseResult {
        var (session, _) = try FakeTestBinary.session(scenario: scenario)
        session.rubric = Rubric(exercises: [exercise])
        return try #require(try session.gradeBuilt([exercise]).first)
    }

    static let race = SanitizerFinding(summary: "data race (pid=1)", file: "Exercises/Demo/Demo.swift", line: 12)

    @Test("Every other check passes: the race check is pending, and none of the points of 'complete' are shown yet")
    func pendingWhenEveryOtherCheckPasses() throws {
        let result = try Self.graded("pass")
        #expect(result.status == .lookingForRaces)
        #expect(!result.isComplete)
        #expect(result.points == 7 && result.totalPoints == 10)
        #expect(result.checks.last?.title == Rubric.raceCheckTitle)
    }

    @Test("No race: its points are earned and the exercise is complete")
    func noRaceEarnsThePoints() throws {
        var result = try Self.graded("pass")
        result.record(.noRace)
        #expect(result.status == .complete || result.status == .completeOnThisPlatform(note: ""))
        #expect(result.points == 10)
        #expect(result.checks.last?.passed == true)
    }

    @Test("A race: no points, the report's file and line as the check's message, status data race")
    func raceFailsTheCheck() throws {
        var result = try Self.graded("pass")
        result.record(.race(Self.race))
        #expect(result.status == .dataRace(Self.race))
        #expect(result.points == 7)
        let check = try #require(result.checks.last)
        #expect(!check.passed && check.earned == 0)
        #expect(check.message?.contains("at Exercises/Demo/Demo.swift:12") == true)
        #expect(check.file == "Exercises/Demo/Demo.swift" && check.line == 12)
    }

    @Test("Another check fails: not checked, no points, said so")
    func notCheckedWhileAnotherFails() throws {
        var result = try Self.graded("crash")
        #expect(result.checks.last?.message?.hasPrefix("Not checked: another check fails") == true)
        result.record(.noRace)
        #expect(result.checks.last?.passed == false, "a race check cannot pass while another check fails")
        #expect(result.points == 5)
    }

    @Test("--no-race-check: not complete, no points, and the reason in the message")
    func notRun() throws {
        var result = try Self.graded("pass")
        result.record(.notRun(reason: "--no-race-check"))
        #expect(result.status == .raceCheckNotRun(reason: "--no-race-check"))
        #expect(!result.isComplete)
        #expect(result.points == 7)
        #expect(result.checks.last?.message == "Not checked: --no-race-check. No points without it.")
    }

    @Test("Classroom, JSON and JUnit list the race check like any check")
    func machineReports() throws {
        var result = try Self.graded("pass")
        result.record(.race(Self.race))
        let report = GradeReport(mode: BuildMode(), exercises: [result], modifiedFiles: [], date: Date())
        let classroom = try #require(try JSONSerialization.jsonObject(with: ClassroomReport.encode(report)) as? [String: Any])
        let tests = try #require(classroom["tests"] as? [[String: Any]])
        #expect(tests.last?["score"] as? Int == 0 && tests.last?["max_score"] as? Int == 3)
        #expect(classroom["max_score"] as? Int == 10)
        let json = String(decoding: try JSONReport.encode(report, repetitions: 1), as: UTF8.self)
        #expect(json.contains("\"test\" : \"noDataRace\""))
        #expect(JUnitReport.render(report).contains("name=\"No data race"))
    }

    @Test("A comment does not change what the race check's verdict depends on; code does")
    func commentsDoNotCountInTheContent() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kata-race-\(UUID().uuidString)")
        let file = root.appendingPathComponent("Exercises/Demo/Demo.swift")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let check = RaceCheck(layout: KataLayout(root: root), rubric: Rubric(exercises: [Self.exercise]), mode: BuildMode(), progress: SilentProgress())
        try Data("var count = 0\nfunc bump() { count += 1 }\n".utf8).write(to: file)
        let before = check.contentID(of: "Demo")
        try Data("// a note\nvar count = 0\n\nfunc bump() { count += 1 }  /* why */\n".utf8).write(to: file)
        #expect(check.contentID(of: "Demo") == before)
        try Data("var count = 0\nfunc bump() { count += 2 }\n".utf8).write(to: file)
        #expect(check.contentID(of: "Demo") != before)
    }
}
