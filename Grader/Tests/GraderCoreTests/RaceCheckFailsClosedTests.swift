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

    @Test("Names without files (atos could not attach, dladdr's names only): the canaries do not count, a nameless race is no \"no race\"")
    func namesWithoutFiles() throws {
        let canariesOnly = try Self.sanitized("pass", sanitizer: "namesonly")
        #expect(Self.reason(canariesOnly)?.contains("naming RaceCanary.swift and a line") == true)
        let withRace = try Self.sanitized("pass", sanitizer: "namesonly", race: "Demo.swift:12")
        #expect(Self.reason(withRace)?.contains("without naming a Swift file and line") == true)
        #expect(!withRace.isComplete && withRace.checks.last?.earned == 0)
    }

    /// Two exercises whose suites run in one process (the native build system), each with a file
    /// named `Shared.swift`: Demo's own, and Bridge's given code (as `AsyncOperation.swift` is in
    /// Exercises/AsyncOperation and Given/AsyncBridge). Reports in Apple's form name it by base name.
    static func sharedBaseName(raceInFilter: String) throws -> [String: ExerciseResult] {
        var (session, layout) = try FakeTestBinary.session(scenario: "pass")
        for path in ["Exercises/Demo/Shared.swift", "Exercises/Bridge/Bridge.swift", "Given/Bridge/Shared.swift"] {
            let file = layout.root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("final class Shared {}\n".utf8).write(to: file)
        }
        var bridge = RaceCheckScoringTests.exercise
        bridge.name = "Bridge"
        let exercises = [RaceCheckScoringTests.exercise, bridge]
        session.mode = BuildMode(sanitize: true)
        session.rubric = Rubric(exercises: exercises)
        session.testEnvironment["FAKE_SANITIZER"] = "canaries"
        session.testEnvironment["FAKE_RACE"] = "Shared.swift:12"
        session.testEnvironment["FAKE_RACE_IN_FILTER"] = raceInFilter
        let results = try session.gradeBuilt(exercises)
        return Dictionary(uniqueKeysWithValues: results.map { ($0.name, $0) })
    }

    @Test("A base name that another exercise of the same process has: the suite runs alone, and a race that does not come back there is not its")
    func sharedBaseNameRunsAlone() throws {
        // The race is printed only by the run that holds both suites.
        let results = try Self.sharedBaseName(raceInFilter: "DemoTests|BridgeTests")
        #expect(results["Demo"]?.raceVerdict == .noRace)
    }

    @Test("A base name that another exercise of the same process has: a race that comes back in the suite's own run is its")
    func sharedBaseNameRaceAlone() throws {
        let results = try Self.sharedBaseName(raceInFilter: "")
        guard case .race(let finding) = results["Demo"]?.raceVerdict else {
            Issue.record("expected a race, got \(String(describing: results["Demo"]?.raceVerdict))")
            return
        }
        #expect(finding.file == "Exercises/Demo/Shared.swift" && finding.line == 12)
    }

    @Test("The canaries' own races never count against the learner")
    func canariesAreNotTheLearners() throws {
        let result = try Self.sanitized("pass", sanitizer: "canaries", race: "Elsewhere.swift:3")
        #expect(result.raceVerdict == .noRace, "a base name that is not the exercise's is not the learner's")
    }
}
