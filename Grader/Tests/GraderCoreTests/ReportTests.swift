import Foundation
import Testing
@testable import GraderCore

@Suite("Reports, history, hints, integrity")
struct ReportTests {
    static var report: GradeReport {
        let result = Scoring.score(Fixture.exercise, runs: [Fixture.stream], terminations: [.timedOut], deadline: 30, seconds: 30)
        return GradeReport(mode: BuildMode(), exercises: [result], modifiedFiles: ["Tests/DemoTests/A.swift"], date: Date(timeIntervalSince1970: 0))
    }

    @Test("JSON follows the documented schema")
    func json() throws {
        let data = try JSONReport.encode(Self.report, repetitions: 1)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["schemaVersion"] as? Int == 1)
        #expect(object["mode"] as? String == "exercises")
        #expect(object["points"] as? Int == 1)
        #expect(object["totalPoints"] as? Int == 6)
        #expect(object["complete"] as? Bool == false)
        #expect(object["modifiedFiles"] as? [String] == ["Tests/DemoTests/A.swift"])
        let exercise = try #require((object["exercises"] as? [[String: Any]])?.first)
        #expect(exercise["status"] as? String == "timed_out")
        #expect((exercise["detail"] as? String)?.contains("deadlock suspected in Hangs") == true)
        let checks = try #require(exercise["checks"] as? [[String: Any]])
        #expect(checks.map { $0["passed"] as? Bool } == [true, false, false])
        #expect(checks[1]["message"] as? String == "3 increments were lost.")
    }

    @Test("JUnit XML has a failure per failed check, escaped")
    func junit() {
        let xml = JUnitReport.render(Self.report)
        #expect(xml.contains(#"<testsuites name="ConcurrencyKata" tests="3" failures="2">"#))
        #expect(xml.contains(#"<testcase classname="Demo" name="basics"/>"#))
        #expect(xml.contains("<failure message=\"3 increments were lost.\" type=\"timed_out\"/>"))
        #expect(JUnitReport.escape("a<b & \"c\"") == "a&lt;b &amp; &quot;c&quot;")
    }

    @Test("The table names the running check of a timed-out exercise and the next step")
    func table() {
        let text = TextReport.render(Self.report, screen: Screen(history: HistorySummary(changeSinceLast: 1, best: 2), focus: "Demo"), style: .plain)
        #expect(text.contains("timed out"))
        #expect(text.contains("Deadlock suspected in \"Hangs\""))
        #expect(text.contains("Score: 1/6 (+1 since the last run; best 2)"))
        #expect(text.contains("swift run grader hint Demo"))
        #expect(text.contains("Warning: these files differ"))
        #expect(!text.contains("\u{1B}["), "plain style has no colour codes")
    }

    @Test("History is written atomically, summarised, and a corrupt file is set aside")
    func history() throws {
        let folder = try TemporaryFolders.make("grader-history")
        let file = folder.appendingPathComponent("history.json")
        var history = History(file: file)
        #expect(history.summary(for: Self.report.exercises, solutions: false) == HistorySummary(changeSinceLast: nil, best: 1))
        try history.record(Self.report.exercises, solutions: false)
        #expect(History(file: file).summary(for: Self.report.exercises, solutions: false) == HistorySummary(changeSinceLast: 0, best: 1))
        #expect(History(file: file).latestStatuses == ["Demo": "timed_out"])

        try Data("{ not json".utf8).write(to: file)
        let recovered = History(file: file)
        #expect(recovered.entries.isEmpty)
        #expect(recovered.warning?.contains("could not be read") == true)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names.contains { $0.hasPrefix("history.corrupt-") })
    }

    @Test("Hints are split at level-2 headings and revealed one more at a time")
    func hints() throws {
        let hints = Hints.parse("# Hints\nintro\n## Hint 1: Start\nUse a queue.\n\n## Hint 2: Then\nUse a barrier.\n")
        #expect(hints == [.init(title: "Hint 1: Start", body: "Use a queue."), .init(title: "Hint 2: Then", body: "Use a barrier.")])
        let file = try TemporaryFolders.make("grader-hints").appendingPathComponent("hints.json")
        var progress = HintProgress(file: file)
        #expect(try progress.reveal("Demo", available: 2) == 1)
        var reloaded = HintProgress(file: file)
        #expect(try reloaded.reveal("Demo", available: 2) == 2)
        #expect(try reloaded.reveal("Demo", available: 2) == 2)
    }

    @Test("Blob ids match git's, and the checklist parser reads @Test titles")
    func integrityAndChecklist() {
        #expect(SHA1.gitBlobID(Data("hello".utf8)) == "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0")
        #expect(SHA1.hex(Data()) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        let titles = Checklist.parseTitles("""
            @Test("Readers \\"share\\"")
            func readers() async {}
            @Test func plain() {}
            @Test("Two", .timeLimit(.minutes(1)))
                func two() {}
            """)
        #expect(titles == ["readers": "Readers \"share\"", "plain": "plain", "two": "Two"])
    }

    @Test("Arguments parse into commands; bad ones are errors (exit code 2)")
    func arguments() throws {
        let grade = try Arguments.parse(["ThreadSafeDictionary", "--repeat", "3", "--json", "out.json", "--solutions"])
        #expect(grade.command == .grade && grade.exercises == ["ThreadSafeDictionary"] && grade.repetitions == 3 && grade.solutions)
        #expect(try Arguments.parse(["hint", "X"]).command == .hint("X"))
        #expect(try Arguments.parse(["reset", "X", "--yes"]).yes)
        #expect(try Arguments.parse(["--help"]).command == .help)
        #expect(throws: GraderError.self) { try Arguments.parse(["--repeat", "0"]) }
        #expect(throws: GraderError.self) { try Arguments.parse(["--bogus"]) }
        #expect(throws: GraderError.self) { try Arguments.parse(["hint"]) }
    }

    @Test("The screen shown while verdicts are pending says the race check comes only after the systematic checks hold")
    func pendingLineOrder() {
        Language.$override.withValue(.english) {
            let both = TextReport.render(Self.report, screen: Screen(focus: "Demo"), style: .plain,
                                         pending: PendingVerdicts(orders: ["Demo"], races: ["Demo"]))
            #expect(both.contains("The systematic checks of Demo are trying the orders"))
            #expect(both.contains("if the systematic checks hold, ThreadSanitizer looks for data races next"))
            #expect(!both.contains("ThreadSanitizer is looking"))
            let races = TextReport.render(Self.report, screen: Screen(focus: "Demo"), style: .plain,
                                          pending: PendingVerdicts(orders: [], races: ["Demo"]))
            #expect(races.contains("ThreadSanitizer is looking for data races") && !races.contains("systematic"))
        }
    }
}
