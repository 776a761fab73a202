import Foundation
import Testing
@testable import GraderCore

/// `--classroom50` and `--gradescope`: the outputs validate against the platforms' documented
/// contracts (`PlatformSchemas`) for the untouched stubs, the solutions, a grade whose race check
/// did not pass, and a grade that could not run; their totals are the grade's.
@Suite("Classroom 50 and Gradescope results")
struct PlatformReportTests {
    static let rubric: Rubric = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("rubric.json")
        return try! Rubric.load(from: file)
    }()

    static let environment = [
        "CLASSROOM": "cs-principles", "ASSIGNMENT": "concurrency-kata", "SUBMISSION_TAG": "submit/2026-11-26T10-00-00Z-a1b2c3d",
        "COMMIT_URL": "https://github.com/o/r/commit/a1b2c3d", "RELEASE_URL": "https://github.com/o/r/releases/tag/submit%2F1",
        "REVIEW_URL": "", "SUBMISSION_DATETIME": "2026-11-26T09:59:58Z",
    ]

    /// Every exercise of the course as the untouched stubs grade: every check failed with a
    /// message, the race check not run.
    static var stubs: GradeReport {
        let exercises = rubric.exercises.map { exercise in
            var result = ExerciseResult(
                name: exercise.name, title: exercise.title, status: .inProgress(firstFailing: exercise.checks[0].test),
                checks: exercise.checks.map { check in
                    CheckResult(test: check.test, title: check.zhHans?.from ?? check.test, points: check.points, earned: 0,
                                passed: false, message: check.isRaceCheck ? nil : "Expected 8000, found 0: \"the stub\" <does nothing> & says so.")
                },
                runs: 1, seconds: 1)
            result.record(.notRun(reason: "the other checks do not all pass"))
            return result
        }
        return GradeReport(mode: BuildMode(), exercises: exercises, modifiedFiles: [], date: Date(timeIntervalSince1970: 1_790_000_000))
    }

    /// Every exercise as the reference solutions grade: every check passed, the race check too.
    static var solutions: GradeReport {
        let exercises = rubric.exercises.map { exercise in
            var result = ExerciseResult(
                name: exercise.name, title: exercise.title, status: .lookingForRaces,
                checks: exercise.checks.map { check in
                    CheckResult(test: check.test, title: check.zhHans?.from ?? check.test, points: check.points,
                                earned: check.isRaceCheck ? 0 : check.points, passed: !check.isRaceCheck)
                },
                runs: 1, seconds: 1)
            result.record(.noRace)
            return result
        }
        var report = GradeReport(mode: BuildMode(), exercises: exercises, modifiedFiles: [], date: Date(timeIntervalSince1970: 1_790_000_000))
        report.seconds = 250.2
        return report
    }

    /// The solutions, except that ThreadSanitizer found a race in the first exercise, the race
    /// check of the second did not run, and a check of the third passed with its points withheld.
    static var raceCheckFailures: GradeReport {
        var report = solutions
        for index in 0..<2 {
            let raceIndex = report.exercises[index].checks.firstIndex { $0.test == Rubric.raceCheckTest }!
            report.exercises[index].checks[raceIndex].passed = false
            report.exercises[index].checks[raceIndex].earned = 0
            report.exercises[index].status = .lookingForRaces
        }
        report.exercises[0].record(.race(SanitizerFinding(summary: "data race in storage", file: "Exercises/X/X.swift", line: 12)))
        report.exercises[1].record(.notRun(reason: "ThreadSanitizer could not start"))
        report.exercises[2].checks[0].earned = 0
        report.exercises[2].checks[0].withheld = "earns its points only with the exclusion checks"
        return report
    }

    func classroom50Problems(_ data: Data) throws -> [String] {
        var problems = try PlatformSchemas.validate(data, against: PlatformSchemas.classroom50)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let tests = object["tests"] as? [[String: Any]] ?? []
        // "score / max-score: Sum of test scores / max-scores."
        if object["score"] as? Int != tests.reduce(0, { $0 + ($1["score"] as? Int ?? 0) }) { problems.append("score is not the sum of the tests'") }
        if object["max-score"] as? Int != tests.reduce(0, { $0 + ($1["max-score"] as? Int ?? 0) }) { problems.append("max-score is not the sum of the tests'") }
        return problems
    }

    func gradescopeProblems(_ data: Data) throws -> [String] {
        var problems = try PlatformSchemas.validate(data, against: PlatformSchemas.gradescope)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let tests = object["tests"] as? [[String: Any]] ?? []
        if object["score"] as? Int != tests.reduce(0, { $0 + ($1["score"] as? Int ?? 0) }) { problems.append("score is not the sum of the tests'") }
        return problems
    }

    @Test("Classroom 50: the stubs, the solutions and failed race checks validate, one test per check, totals the grade's",
          arguments: ["stubs", "solutions", "raceCheckFailures"])
    func classroom50(_ name: String) throws {
        let report = name == "stubs" ? Self.stubs : name == "solutions" ? Self.solutions : Self.raceCheckFailures
        let data = try Classroom50Report.encode(report, environment: Self.environment)
        #expect(try classroom50Problems(data) == [])
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["score"] as? Int == report.points)
        #expect(object["max-score"] as? Int == report.totalPoints)
        #expect(object["max-score"] as? Int == Self.rubric.totalPoints)
        #expect(object["classroom"] as? String == "cs-principles")
        #expect(object["datetime"] as? String == "2026-11-26T09:59:58Z", "the submission instant, when the caller knows it")
        #expect(object["review"] as? String == "https://github.com/o/r/commit/a1b2c3d", "an empty REVIEW_URL falls back to the commit, as the wiki's template does")
        let tests = try #require(object["tests"] as? [[String: Any]])
        #expect(tests.count == Self.rubric.exercises.reduce(0) { $0 + $1.checks.count })
        let failed = tests.filter { $0["passed"] as? Bool == false }
        #expect(failed.allSatisfy { ($0["message"] as? String)?.isEmpty == false }, "every failed test says why")
    }

    @Test("Gradescope: the stubs, the solutions and failed race checks validate, one test per check, totals the grade's",
          arguments: ["stubs", "solutions", "raceCheckFailures"])
    func gradescope(_ name: String) throws {
        let report = name == "stubs" ? Self.stubs : name == "solutions" ? Self.solutions : Self.raceCheckFailures
        let data = try GradescopeReport.encode(report)
        #expect(try gradescopeProblems(data) == [])
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["score"] as? Int == report.points)
        let tests = try #require(object["tests"] as? [[String: Any]])
        #expect(tests.reduce(0) { $0 + ($1["max_score"] as? Int ?? 0) } == Self.rubric.totalPoints)
        #expect(tests.filter { $0["status"] as? String == "passed" }.count == tests.filter { $0["score"] as? Int == $0["max_score"] as? Int && ($0["max_score"] as? Int ?? 0) > 0 }.count)
        #expect(tests.allSatisfy { $0["status"] as? String == "passed" || ($0["output"] as? String)?.isEmpty == false }, "every failed test says why")
    }

    @Test("A race check that found a race, or could not run, is a failed test with its message")
    func raceCheck() throws {
        let report = Self.raceCheckFailures
        let classroom = try #require(try JSONSerialization.jsonObject(with: Classroom50Report.encode(report, environment: Self.environment)) as? [String: Any])
        let tests = try #require(classroom["tests"] as? [[String: Any]])
        let races = tests.filter { $0["check"] as? String == Rubric.raceCheckTest }
        #expect(races[0]["passed"] as? Bool == false)
        #expect((races[0]["message"] as? String)?.contains("data race in storage") == true)
        #expect(races[1]["passed"] as? Bool == false)
        #expect((races[1]["message"] as? String)?.contains("ThreadSanitizer could not start") == true)
        #expect(races[2]["passed"] as? Bool == true)
        let withheld = try #require(tests.first { $0["exercise"] as? String == report.exercises[2].name })
        #expect(withheld["passed"] as? Bool == false, "a pass whose points are withheld is not full credit")
        #expect((withheld["message"] as? String)?.contains("exclusion checks") == true)
        let gradescope = try #require(try JSONSerialization.jsonObject(with: GradescopeReport.encode(report)) as? [String: Any])
        let gsTests = try #require(gradescope["tests"] as? [[String: Any]])
        #expect(gsTests.filter { $0["status"] as? String == "failed" }.count == 3)
    }

    @Test("A grade that could not run validates on both platforms: no points, the whole course possible, the reason")
    func couldNotRun() throws {
        let classroom = try Classroom50Report.error("swift: command not found", maxScore: Self.rubric.totalPoints, environment: Self.environment)
        #expect(try classroom50Problems(classroom) == [])
        let object = try #require(try JSONSerialization.jsonObject(with: classroom) as? [String: Any])
        #expect(object["score"] as? Int == 0)
        #expect(object["max-score"] as? Int == Self.rubric.totalPoints)
        #expect(((object["tests"] as? [[String: Any]])?.first?["message"] as? String)?.contains("command not found") == true)
        let gradescope = try GradescopeReport.error("swift: command not found", maxScore: Self.rubric.totalPoints)
        #expect(try gradescopeProblems(gradescope) == [])
        let gsObject = try #require(try JSONSerialization.jsonObject(with: gradescope) as? [String: Any])
        #expect(gsObject["score"] as? Int == 0)
        #expect((gsObject["output"] as? String)?.contains("command not found") == true)
    }

    @Test("The schemas catch what breaks a contract (a validator that cannot fail checks nothing)")
    func schemasCatch() throws {
        let wrongSchema = Data(#"{"schema":"classroom50/result/v2","classroom":"c","assignment":"a","submission":"s","commit":"","release":"","review":"","datetime":"yesterday","score":1,"max-score":1,"tests":[{"test-name":"t","passed":"yes","score":1,"max-score":1}],"extra":1}"#.utf8)
        let problems = try PlatformSchemas.validate(wrongSchema, against: PlatformSchemas.classroom50)
        #expect(problems.contains { $0.contains("$.schema") })
        #expect(problems.contains { $0.contains("$.datetime") })
        #expect(problems.contains { $0.contains("$.tests[0].passed") })
        #expect(problems.contains { $0.contains("\"extra\"") })
        #expect(try classroom50Problems(Data(#"{"schema":"classroom50/result/v1","classroom":"c","assignment":"a","submission":"s","commit":"","release":"","review":"","datetime":"2026-01-01T00:00:00Z","score":2,"max-score":1,"tests":[{"test-name":"t","passed":true,"score":1,"max-score":1}]}"#.utf8)) == ["score is not the sum of the tests'"])
        let badGradescope = Data(#"{"tests":[{"name":"t","status":"pass","max_score":1}]}"#.utf8)
        let gsProblems = try PlatformSchemas.validate(badGradescope, against: PlatformSchemas.gradescope)
        #expect(gsProblems.contains { $0.contains("status") })
        #expect(gsProblems.contains { $0.contains("anyOf") }, "no score anywhere")
    }
}
