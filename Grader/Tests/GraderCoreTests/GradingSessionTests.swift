import Foundation
import Testing
@testable import GraderCore

/// The grading run end to end on a fake test binary: a pass needs the check's end, the check
/// to blame is found by a rerun one at a time, the others keep their points, output is bounded.
@Suite("Grading session")
struct GradingSessionTests {
    @Test("A process that exits with status 0 in the middle of a check: that check fails and says so, the others count")
    func earlyExitFailsOnlyTheRunningCheck() throws {
        let (session, _) = try FakeTestBinary.session(scenario: "exit0")
        let result = try #require(try session.gradeBuilt([FakeTestBinary.exercise]).first)
        #expect(result.status == .exitedEarly(code: 0, runningTest: "misbehaves"))
        #expect(result.checks.map(\.passed) == [true, false, true])
        #expect(result.points == 5, "basics (1) and later (4) count; the check that exited earns nothing")
        let message = result.checks[1].message ?? ""
        #expect(message.hasPrefix("The process exited with status 0 before the check finished: something in your code called exit()"), "got: \(message)")
    }

    @Test("Output that never ends stops the run as 'output limit exceeded', the log stays bounded, the others count")
    func floodIsStoppedAndBounded() throws {
        let (session, layout) = try FakeTestBinary.session(scenario: "flood")
        let result = try #require(try session.gradeBuilt([FakeTestBinary.exercise]).first)
        #expect(result.status == .outputLimitExceeded(runningTest: "misbehaves"))
        #expect(result.checks.map(\.passed) == [true, false, true])
        #expect((result.checks[1].message ?? "").hasPrefix("Output limit exceeded"))
        let logs = try FileManager.default.contentsOfDirectory(at: layout.stateDirectory.appendingPathComponent("runs/exercises"), includingPropertiesForKeys: [.fileSizeKey])
            .filter { $0.pathExtension == "log" }
        #expect(!logs.isEmpty)
        for log in logs {
            let size = try log.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0
            #expect(size < 3 << 20, "\(log.lastPathComponent) is \(size) bytes")
        }
        let json = try JSONReport.encode(GradeReport(mode: BuildMode(), exercises: [result], modifiedFiles: [], date: Date()), repetitions: 1)
        #expect((try? JSONSerialization.jsonObject(with: json)) != nil, "the JSON report stays valid")
    }

    @Test("A crash in one check is blamed on it; the others count")
    func crashIsBlamed() throws {
        let (session, _) = try FakeTestBinary.session(scenario: "crash")
        let result = try #require(try session.gradeBuilt([FakeTestBinary.exercise]).first)
        #expect(result.status == .crashed(signal: 11, runningTest: "misbehaves"))
        #expect(result.points == 5)
    }

    /// On macOS the grader runs the suites through `swift test`, which reports a test process
    /// killed by a signal as status 1 and "Exited with unexpected signal code N" (SwiftPM,
    /// SwiftTestCommand.swift): still a crash, not an early exit.
    @Test("A crash that swift test reports as a status and a line is still a crash")
    func crashReportedBySwiftTest() throws {
        let (session, _) = try FakeTestBinary.session(scenario: "swifttestcrash")
        let result = try #require(try session.gradeBuilt([FakeTestBinary.exercise]).first)
        #expect(result.status == .crashed(signal: 5, runningTest: "misbehaves"))
        #expect(result.points == 5)
    }

    /// `swift test` exits 1 when it cannot run its test helper (SwiftPM, SwiftTestCommand.swift);
    /// no test ran, so no learner is told that their code called exit().
    @Test("A test process that exits before its run started is 'could not grade', with the end of its log, in both languages")
    func exitBeforeTheRunStartedCannotGrade() throws {
        for (language, words) in [(Language.english, "The test process (sh) exited with status 1 before its test run started: no check ran, so nothing could be graded"),
                                  (.simplifiedChinese, "测试进程（sh）在测试运行开始之前就以状态 1 退出了：没有任何检查运行过，所以无法评分")] {
            let (session, _) = try FakeTestBinary.session(scenario: "notstarted")
            let error = try #require(throws: GraderError.self) {
                try Language.$override.withValue(language) { try session.gradeBuilt([FakeTestBinary.exercise]) }
            }
            guard case .cannotRun(let text) = error else { Issue.record("not cannotRun: \(error)"); continue }
            #expect(text.hasPrefix(words), "got: \(text)")
            #expect(text.hasSuffix("error: could not start swiftpm-testing-helper: No such file or directory"), "the end of the log: \(text)")
            #expect(!text.contains("exit()"))
        }
    }

    #if os(Linux)
    /// Swift Build makes a test runner per test target: the suites run side by side, one process
    /// each, and what one process does cannot cost another suite its points.
    @Test("With a runner per suite (Swift Build), a crash is blamed on its check and the other suite, in its own process, keeps every point")
    func runnerPerSuite() throws {
        var (session, layout) = try FakeTestBinary.session(scenario: "crash")
        let bin = layout.root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let other = Rubric.Exercise(name: "Other", title: "Other exercise", checks: FakeTestBinary.exercise.checks, timeoutSeconds: 20)
        let otherScript = FakeTestBinary.script.replacingOccurrences(of: "DemoTests", with: "OtherTests")
            .replacingOccurrences(of: "$FAKE_SCENARIO", with: "pass")
        for (target, script) in [("DemoTests", FakeTestBinary.script), ("OtherTests", otherScript)] {
            let runner = bin.appendingPathComponent("\(target)-test-runner")
            try Data(script.utf8).write(to: runner)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: runner.path)
        }
        session.rubric = Rubric(exercises: [FakeTestBinary.exercise, other])
        session.testCommand = nil
        session.mode = BuildMode(buildSystem: .swiftbuild)
        session.testProducts = TestProducts(mode: session.mode, binPath: bin)
        let results = try session.gradeBuilt([FakeTestBinary.exercise, other])
        #expect(results[0].status == .crashed(signal: 11, runningTest: "misbehaves"))
        #expect(results[0].points == 5)
        #expect(results[1].points == 7, "the other suite's process did not crash")
        let runs = layout.stateDirectory.appendingPathComponent("runs/exercises")
        for name in ["all-Demo", "all-Other", "Demo"] {
            #expect(FileManager.default.fileExists(atPath: runs.appendingPathComponent("\(name).jsonl").path), "\(name): its own event stream")
        }
        #expect(!FileManager.default.fileExists(atPath: runs.appendingPathComponent("Other.jsonl").path), "no rerun of a clean run")
    }
    #endif

    @Test("A clean run needs no rerun and earns every point")
    func cleanRun() throws {
        let (session, _) = try FakeTestBinary.session(scenario: "pass")
        let result = try #require(try session.gradeBuilt([FakeTestBinary.exercise]).first)
        #expect(result.status == .complete || result.status == .completeOnThisPlatform(note: ""))
        #expect(result.points == 7)
    }

    @Test("A check that requires others earns nothing while they fail, and says why")
    func requirementsWithholdPoints() throws {
        var exercise = FakeTestBinary.exercise
        exercise.checks[2].requires = ["misbehaves"]
        var (session, _) = try FakeTestBinary.session(scenario: "exit0")
        session.rubric = Rubric(exercises: [exercise])
        let result = try #require(try session.gradeBuilt([exercise]).first)
        #expect(result.checks[2].passed)
        #expect(result.checks[2].earned == 0)
        #expect(result.points == 1)
        #expect((result.checks[2].withheld ?? "").contains("earns its points only together with"))
    }
}
