import Foundation
import Testing
@testable import GraderCore

/// The reports instructors feed to CI: Markdown for a job summary, GitHub Classroom's runner
/// result for partial credit per check, and the JSON fields added for them.
@Suite("Markdown, Classroom and JSON for instructors")
struct MachineReportTests {
    static var report: GradeReport {
        var report = ReportTests.report
        report.exercises[0].copiedFromSolution = true
        report.seconds = 12.5
        return report
    }

    @Test("Markdown has the table, what is left per exercise, and pipes escaped")
    func markdown() {
        var report = Self.report
        report.exercises[0].checks[1].message = "a | b\nc"
        let text = MarkdownReport.render(report)
        #expect(text.hasPrefix("## Concurrency Kata: 1/6 points"))
        #expect(text.contains("| Demo exercise | 1/6 | 1/3 | timed out (files identical to the reference solution) |"))
        #expect(text.contains("- ✘ Increments are never lost: a \\| b c"))
        #expect(text.contains("> **Warning:** these files differ"))
    }

    @Test("Classroom result: one test per check, its points as score, the total as max_score")
    func classroom() throws {
        let data = try ClassroomReport.encode(Self.report)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        #expect(object["status"] as? String == "fail")
        #expect(object["max_score"] as? Int == 6)
        let tests = try #require(object["tests"] as? [[String: Any]])
        #expect(tests.map { $0["name"] as? String } == ["Demo: basics", "Demo: Increments are never lost", "Demo: Hangs"])
        #expect(tests.map { $0["status"] as? String } == ["pass", "fail", "fail"])
        #expect(tests.map { $0["score"] as? Int } == [1, 0, 0])
        #expect(tests.map { $0["max_score"] as? Int } == [1, 2, 3])
        #expect(tests[1]["message"] as? String == "3 increments were lost.")
        let error = try #require(try JSONSerialization.jsonObject(with: ClassroomReport.error("no toolchain", maxScore: 6)) as? [String: Any])
        #expect(error["status"] as? String == "error")
    }

    @Test("JSON carries the run's seconds and copiedFromSolution per exercise")
    func jsonForInstructors() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: JSONReport.encode(Self.report, repetitions: 1)) as? [String: Any])
        #expect(object["seconds"] as? Double == 12.5)
        let exercise = try #require((object["exercises"] as? [[String: Any]])?.first)
        #expect(exercise["copiedFromSolution"] as? Bool == true)
    }

    @Test("copiedFromSolution compares the learner's Swift files with the solution's blob ids")
    func copiedFromSolution() throws {
        let root = try TemporaryFolders.make("grader-copy")
        let layout = KataLayout(root: root)
        for folder in ["Exercises/Demo", "Solutions/Demo", "Grader"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Data("solution\n".utf8).write(to: root.appendingPathComponent("Solutions/Demo/Demo.swift"))
        try Data("stub\n".utf8).write(to: root.appendingPathComponent("Exercises/Demo/Demo.swift"))
        try Data("# Demo\n".utf8).write(to: root.appendingPathComponent("Exercises/Demo/README.md"))
        let manifest = IntegrityManifest.compute(layout: layout, rubric: Rubric(exercises: [FakeTestBinary.exercise]))
        #expect(!manifest.isCopiedFromSolution("Demo", layout: layout))
        try Data("solution\n".utf8).write(to: root.appendingPathComponent("Exercises/Demo/Demo.swift"))
        #expect(manifest.isCopiedFromSolution("Demo", layout: layout), "README and hints do not count, only the Swift files")
        try FileManager.default.removeItem(at: root.appendingPathComponent("Solutions"))
        #expect(manifest.isCopiedFromSolution("Demo", layout: layout), "deleting Solutions/ does not hide it")
    }
}
