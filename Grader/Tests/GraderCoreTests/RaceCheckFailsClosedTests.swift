import Foundation
import Testing
@testable import GraderCore

/// The race check passes only on evidence that ThreadSanitizer ran in every kind of process and
/// that its reports were found and read; anything else is "could not run", which earns nothing.
@Suite("The race check fails closed")
struct RaceCheckFailsClosedTests {
    /// The fake suite, graded as the race check grades it (`--sanitize`), with `sanitizer` saying
    /// what the fake binary prints of ThreadSanitizer (FakeTestBinary's `FAKE_SANITIZER`).
    static func sanitized(_ scenario: String, sanitizer: String, race: String? = nil) throws -> ExerciseResult {
        var (session, _) = try FakeTestBinary.session(scenario: scenario)
        session.mode = BuildMode(sanitize: true)
        session.rubric = Rubric(exercises: [RaceCheckScoringTests.exercise])
        session.testEnvironment["FAKE_SANITIZER"] = sanitizer
        if let race { session.testEnvironment["FAKE_RACE"] = race }
        return try #require(try session.gradeBuilt([RaceCheckScoringTests.exercise]).first)
    }

    static func reason(_ result: ExerciseResult) -> String? {
        if case .couldNotRun(let reason) = result.raceVerdict { reason } else { nil }
    }

    @Test("Both canaries reported and every check ended: no race, and the race check's points")
    func provenRun() throws {
        let result = try Self.sanitized("pass", sanitizer: "canaries")
        #expect(result.raceVerdict == .noRace)
        #expect(result.isComplete && result.points == 10)
    }

    @Test("ThreadSanitizer could not start (a limited address space): could not run, with its words, no points")
    func cannotStart() throws {
        let result = try Self.sanitized("pass", sanitizer: "cannotstart")
        #expect(Self.reason(result)?.contains("ThreadSanitizer could not start (ERROR: ThreadSanitizer setrlimit() failed 22)") == true)
        #expect(!result.isComplete)
        #expect(result.checks.last?.earned == 0)
    }

    @Test("No canary report: the run proves nothing, whatever else passed")
    func noCanary() throws {
        let result = try Self.sanitized("pass", sanitizer: "none")
        #expect(Self.reason(result)?.contains("known race in the test process") == true)
        #expect(!result.isComplete)
    }

    @Test("No report from an isolated check's child (Apple's strip_env): could not run")
    func noChildCanary() throws {
        let result = try Self.sanitized("pass", sanitizer: "childless")
        #expect(Self.reason(result)?.contains("isolated check's child process") == true)
    }

    @Test("A sanitized run that crashed: could not run, naming the check that was running")
    func crashed() throws {
        let result = try Self.sanitized("crash", sanitizer: "canaries")
        #expect(Self.reason(result)?.contains("crashed with signal 11 while \"misbehaves\" ran") == true)
        #expect(result.checks.last?.earned == 0)
    }

    @Test("A sanitized run that exited early: could not run")
    func exitedEarly() throws {
        let result = try Self.sanitized("exit0", sanitizer: "canaries")
        #expect(Self.reason(result) != nil)
        #expect(!result.isComplete)
    }

    @Test("A race in the exercise's file, printed with a base name only (Apple platforms), is the learner's")
    func raceWithBaseName() throws {
        var (session, layout) = try FakeTestBinary.session(scenario: "pass")
        let file = layout.root.appendingPathComponent("Exercises/Demo/Demo.swift")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("final class Demo {}\n".utf8).write(to: file)
        session.mode = BuildMode(sanitize: true)
        session.rubric = Rubric(exercises: [RaceCheckScoringTests.exercise])
        session.testEnvironment["FAKE_SANITIZER"] = "canaries"
        session.testEnvironment["FAKE_RACE"] = "Demo.swift:12"
        let result = try #require(try session.gradeBuilt([RaceCheckScoringTests.exercise]).first)
        guard case .race(let finding) = result.raceVerdict else {
            Issue.record("expected a race, got \(String(describing: result.raceVerdict))")
            return
        }
        #expect(finding.file == "Exercises/Demo/Demo.swift" && finding.line == 12)
        #expect(finding.accesses.map(\.thread) == ["thread T3", "main thread"])
        #expect(finding.reportFolder?.hasPrefix(".kata/runs/") == true)
    }

    @Test("The canaries' own races never count against the learner")
    func canariesAreNotTheLearners() throws {
        let result = try Self.sanitized("pass", sanitizer: "canaries", race: "Elsewhere.swift:3")
        #expect(result.raceVerdict == .noRace, "a base name that is not the exercise's is not the learner's")
    }
}
