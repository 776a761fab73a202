import Foundation
import Testing
@testable import GraderCore

/// The search under a failing stress check: when it runs, what it
/// shows for each answer the runner can give, and that every property it relates is a real check.
@Suite("Model search after a grade")
struct ModelSearchTests {
    static func check(_ test: String, passed: Bool) -> CheckResult {
        CheckResult(test: test, title: "Title of \(test)", points: 2, earned: passed ? 2 : 0, passed: passed)
    }

    static func exercise(_ name: String, status: ExerciseStatus, failing: [String]) -> ExerciseResult {
        let tests = ["basics", "handoffsNeverStall", "manyProducersAndConsumers", Rubric.raceCheckTest]
        return ExerciseResult(name: name, title: name, status: status,
                              checks: tests.map { check($0, passed: !failing.contains($0)) }, runs: 1, seconds: 1)
    }

    @Test("It searches only an exercise the model covers, started, with a failing check other than the race check")
    func when() throws {
        let failing = Self.exercise("BoundedBuffer", status: .inProgress(firstFailing: "x"), failing: ["handoffsNeverStall"])
        #expect(ModelSearch.failingStressChecks(of: failing, started: true).map(\.test) == ["handoffsNeverStall"])
        #expect(ModelSearch.failingStressChecks(of: failing, started: false).isEmpty, "a stub is not the learner's code")
        var other = failing
        other.name = "AsyncOperation"
        #expect(ModelSearch.failingStressChecks(of: other, started: true).isEmpty, "not modeled")
        let hung = Self.exercise("BoundedBuffer", status: .timedOut(runningTest: "x", seconds: 60), failing: ["manyProducersAndConsumers"])
        #expect(ModelSearch.failingStressChecks(of: hung, started: true).count == 1)
        let raceOnly = Self.exercise("BoundedBuffer", status: .dataRace(SanitizerFinding(summary: "data race", file: nil, line: nil)), failing: [Rubric.raceCheckTest])
        #expect(ModelSearch.failingStressChecks(of: raceOnly, started: true).isEmpty)
        let broken = Self.exercise("BoundedBuffer", status: .doesNotCompile(CompileError(file: "F.swift", line: 1, column: 1, message: "x", exercise: "BoundedBuffer")),
                                   failing: ["handoffsNeverStall"])
        #expect(ModelSearch.failingStressChecks(of: broken, started: true).isEmpty)
        #expect(try Arguments.parse(["BoundedBuffer", "--no-model"]).modelSearch == false)
        #expect(try Arguments.parse(["BoundedBuffer"]).modelSearch)
    }

    @Test("A broken property is drawn under the failing check's title; one that held, could not be judged or is not related says so, and claims no cause")
    func what() {
        let failing = [Self.check("handoffsNeverStall", passed: false)]
        func report(_ verdict: String) -> ModelVerdict {
            .report(ModelRunReport(exercise: "BoundedBuffer", budget: 1_000, checks: [
                .init(verdict: verdict, index: 1, name: "hand-off through one slot", title: "hand-off through one slot",
                      stress: ["handoffsNeverStall"], schedules: 3, seconds: 0.01, number: verdict == "pass" ? nil : 2, code: "01110*5.",
                      picture: "The interleaving that broke it\n step | producer\n✗ no twin operation for 2 s: a thread loops"),
            ]))
        }
        Language.$override.withValue(.english) {
            let broken = ModelSearch.render(report("fail"), exercise: "BoundedBuffer", failing: failing).joined(separator: "\n")
            #expect(broken.contains("It breaks the property of \"Title of handoffsNeverStall\":"))
            #expect(broken.contains("✗ hand-off through one slot: schedule 2 breaks it"))
            #expect(broken.contains("Replay: swift run grader replay BoundedBuffer 2 --check 1"))
            let held = ModelSearch.render(report("pass"), exercise: "BoundedBuffer", failing: failing).joined(separator: "\n")
            #expect(held.contains("No order of their synchronization calls breaks hand-off through one slot"))
            #expect(held.contains("does not see") && !held.contains("breaks it"))
            let undecided = ModelSearch.render(report("undecided"), exercise: "BoundedBuffer", failing: failing).joined(separator: "\n")
            #expect(undecided.contains("could not judge it: no twin operation for 2 s") && undecided.contains("No verdict"))
            #expect(!undecided.contains("breaks the property") && !undecided.contains("step |"))
            let unrelated = ModelVerdict.report(ModelRunReport(exercise: "BoundedBuffer", budget: 1_000, checks: []))
            #expect(ModelSearch.render(unrelated, exercise: "BoundedBuffer", failing: failing).isEmpty)
            let cannot = ModelSearch.render(.cannotRun("boom"), exercise: "BoundedBuffer", failing: failing).joined(separator: "\n")
            #expect(cannot.contains("could not run: boom") && cannot.contains("not a pass"))
        }
        Language.$override.withValue(.simplifiedChinese) {
            let broken = ModelSearch.render(report("fail"), exercise: "BoundedBuffer", failing: failing).joined(separator: "\n")
            #expect(broken.contains("它违反了“Title of handoffsNeverStall”的性质") && broken.contains("重放：swift run grader replay BoundedBuffer 2 --check 1"))
        }
    }

    @Test("A runner asked for some checks only may report none; `grader model` still may not")
    func emptyOnlyWhenAsked() throws {
        let empty = try JSONEncoder().encode(ModelRunReport(exercise: "Deadlocks", budget: 1_000, checks: []))
        #expect(ModelRunResult.read(termination: .exited(0), report: empty, output: "", exercise: "Deadlocks", mayBeEmpty: true)
                == .report(ModelRunReport(exercise: "Deadlocks", budget: 1_000, checks: [])))
        guard case .cannotRun = ModelRunResult.read(termination: .exited(0), report: empty, output: "", exercise: "Deadlocks") else {
            Issue.record("an empty report gave `grader model` a verdict")
            return
        }
    }

    @Test("Every stress check a systematic check names (`stress: [...]` in Model/Checks) is a check of that exercise in the rubric")
    func relatedChecksExist() throws {
        let layout = try #require(KataLayout.find())
        let rubric = try Rubric.load(from: layout.rubricFile)
        let list = try NSRegularExpression(pattern: #"stress: \[([^\]]*)\]"#)
        for exercise in ModelApplicability.exercises {
            let tests = Set(try #require(rubric.exercises.first { $0.name == exercise }).checks.map(\.test))
            let folder = layout.root.appendingPathComponent("Model/Checks/\(exercise)")
            var named = 0
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
                let source = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for match in list.matches(in: source, range: NSRange(source.startIndex..., in: source)) {
                    let inside = source[Range(match.range(at: 1), in: source)!]
                    for name in inside.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }) {
                        named += 1
                        #expect(tests.contains(name), "\(exercise): \(file) names \(name), which its rubric does not have")
                    }
                }
            }
            #expect(named > 0, "\(exercise): no systematic check names a stress check, so a grade never searches it")
        }
    }
}
