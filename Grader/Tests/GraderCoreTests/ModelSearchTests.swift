import Foundation
import Testing
@testable import GraderCore

/// The systematic checks in a grade: which exercises they judge, what a broken order does to the
/// stress checks, what a trap in the learner's code under the model means, what the grade prints
/// under itself for each answer the runner can give, and that every property a check names is a
/// real check of the rubric.
@Suite("Systematic checks in a grade")
struct ModelSearchTests {
    static func check(_ test: String, passed: Bool) -> CheckResult {
        CheckResult(test: test, title: "Title of \(test)", points: 2, earned: passed ? 2 : 0, passed: passed)
    }

    static func exercise(_ name: String, status: ExerciseStatus, failing: [String]) -> ExerciseResult {
        let tests = ["basics", "handoffsNeverStall", "manyProducersAndConsumers", Rubric.raceCheckTest]
        return ExerciseResult(name: name, title: name, status: status,
                              checks: tests.map { check($0, passed: !failing.contains($0)) }, runs: 1, seconds: 1)
    }

    @Test("The systematic checks judge an exercise the model covers that compiles: the one in focus once started, any other once its stress checks all pass")
    func when() throws {
        let failing = Self.exercise("BoundedBuffer", status: .inProgress(firstFailing: "x"), failing: ["handoffsNeverStall"])
        #expect(ModelGate.exercisesToJudge([failing], focus: "BoundedBuffer") { _ in true } == ["BoundedBuffer"])
        #expect(ModelGate.exercisesToJudge([failing], focus: "BoundedBuffer") { _ in false }.isEmpty, "a stub is not the learner's code")
        #expect(ModelGate.exercisesToJudge([failing], focus: "Deadlocks") { _ in true }.isEmpty, "not in focus, and a stress check fails")
        let passing = Self.exercise("BoundedBuffer", status: .lookingForRaces, failing: [Rubric.raceCheckTest])
        #expect(ModelGate.exercisesToJudge([passing], focus: nil) { _ in false } == ["BoundedBuffer"], "about to be complete: judged wherever the focus is")
        var other = passing
        other.name = "AsyncOperation"
        #expect(ModelGate.exercisesToJudge([other], focus: "AsyncOperation") { _ in true }.isEmpty, "not modeled")
        let hung = Self.exercise("BoundedBuffer", status: .timedOut(runningTest: "x", seconds: 60), failing: ["manyProducersAndConsumers"])
        #expect(ModelGate.exercisesToJudge([hung], focus: "BoundedBuffer") { _ in true } == ["BoundedBuffer"], "a hang has an order to show")
        let broken = Self.exercise("BoundedBuffer", status: .doesNotCompile(CompileError(file: "F.swift", line: 1, column: 1, message: "x", exercise: "BoundedBuffer")),
                                   failing: ["handoffsNeverStall"])
        #expect(ModelGate.exercisesToJudge([broken], focus: "BoundedBuffer") { _ in true }.isEmpty)
        #expect(try Arguments.parse(["BoundedBuffer", "--no-model"]).modelSearch == false)
        #expect(try Arguments.parse(["BoundedBuffer"]).modelSearch)
    }

    static func rubricExercise() -> Rubric.Exercise {
        let json = """
            {"name": "BoundedBuffer", "title": "Bounded buffer", "checks": [
              {"test": "basics", "points": 1},
              {"test": "handoffsNeverStall", "points": 2, "requires": ["manyProducersAndConsumers"]},
              {"test": "manyProducersAndConsumers", "points": 4},
              {"test": "noDataRace", "points": 4}]}
            """
        return try! JSONDecoder().decode(Rubric.Exercise.self, from: Data(json.utf8))
    }

    static func brokenCheck(_ verdict: String = "fail", stress: [String] = ["manyProducersAndConsumers"]) -> ModelRunReport.Check {
        .init(verdict: verdict, index: 2, name: "two producers, one consumer", title: "two producers, one consumer",
              stress: stress, schedules: 1, seconds: 0.01, number: 0, code: "0", picture: "step | producer 1")
    }

    @Test("A broken order fails the stress checks that state its property, whatever the stress loop saw; the checks that require them earn nothing; never complete")
    func brokenOrderFailsItsStressChecks() {
        Language.$override.withValue(.english) {
            var result = Self.exercise("BoundedBuffer", status: .lookingForRaces, failing: [Rubric.raceCheckTest])
            let replay = ModelGate.replayCommand(Self.brokenCheck(), exercise: "BoundedBuffer", mode: BuildMode())
            #expect(replay == "swift run grader replay BoundedBuffer 0 --check 2")
            result.recordBrokenOrder(Self.brokenCheck(), exercise: Self.rubricExercise(), replay: replay)
            let many = result.checks.first { $0.test == "manyProducersAndConsumers" }
            #expect(many?.passed == false && many?.earned == 0)
            #expect(many?.message?.contains("The systematic check \"two producers, one consumer\" found an order") == true)
            #expect(many?.message?.contains(replay) == true)
            let handoffs = result.checks.first { $0.test == "handoffsNeverStall" }
            #expect(handoffs?.earned == 0, "requires the broken check")
            #expect(result.points == 2, "only basics")
            #expect(result.status == .inProgress(firstFailing: "Title of manyProducersAndConsumers"))
            #expect(!result.isComplete)
            #expect(result.orderFindings.map(\.title) == ["two producers, one consumer"])
            result.record(.noRace)
            #expect(!result.isComplete, "the race check cannot make it complete")
        }
        let verify = VerifyCommand.unjudged(["BoundedBuffer": .report(ModelRunReport(exercise: "BoundedBuffer", budget: 1, checks: [Self.brokenCheck()]))],
                                            among: ["BoundedBuffer", "Deadlocks"])
        #expect(verify.count == 2, "a broken solution and one never judged are both verify's problems: \(verify)")
    }

    @Test("A trap inside a known schedule of a known check is that check's failure; a trap the run cannot place, or in the model's own code, is no verdict")
    func crashInACheck() throws {
        var partial = ModelRunReport(exercise: "BoundedBuffer", budget: 1_000, checks: [])
        partial.running = Self.brokenCheck("running")
        let data = try JSONEncoder().encode(partial)
        let output = "model: check 1\nmodel: schedule 0\nmodel: check 2\nmodel: schedule 0\nmodel: schedule 7\nFatal error: Index out of range"
        guard case .report(let report) = ModelRunResult.read(termination: .signalled(4), report: data, output: output, exercise: "BoundedBuffer") else {
            Issue.record("a trap in check 2, schedule 7 gave no verdict")
            return
        }
        #expect(report.checks.last?.verdict == "crash" && report.checks.last?.number == 7 && report.checks.last?.index == 2)
        #expect(report.checks.last?.picture?.contains("Index out of range") == true)
        let unplaced = "model: check 2\nFatal error: Index out of range"
        if case .report = ModelRunResult.read(termination: .signalled(4), report: data, output: unplaced, exercise: "BoundedBuffer") {
            Issue.record("a trap with no schedule line was placed")
        }
        let own = output + " at KataModel/Scheduler.swift:12"
        if case .report = ModelRunResult.read(termination: .signalled(4), report: data, output: own, exercise: "BoundedBuffer") {
            Issue.record("a trap in the model's runtime was blamed on the learner")
        }
        if case .report = ModelRunResult.read(termination: .signalled(9), report: data, output: output, exercise: "BoundedBuffer") {
            Issue.record("a kill was read as a trap")
        }
    }

    @Test("Under the grade: a broken property is drawn under the failing check's title; one that held says what the model does not see, and claims no cause")
    func what() {
        func report(_ verdict: String) -> ModelVerdict {
            .report(ModelRunReport(exercise: "BoundedBuffer", budget: 1_000, checks: [
                .init(verdict: verdict, index: 1, name: "hand-off through one slot", title: "hand-off through one slot",
                      stress: ["handoffsNeverStall"], schedules: 3, seconds: 0.01, number: verdict == "pass" ? nil : 2, code: "01110*5.",
                      picture: "The interleaving that broke it\n step | producer\n✗ no twin operation for 2 s: a thread loops"),
            ]))
        }
        let failing = Self.exercise("BoundedBuffer", status: .inProgress(firstFailing: "x"), failing: ["handoffsNeverStall"])
        let passing = Self.exercise("BoundedBuffer", status: .complete, failing: [])
        Language.$override.withValue(.english) {
            let broken = ModelSearch.render(report("fail"), exercise: failing, replaySuffix: "").joined(separator: "\n")
            #expect(broken.contains("It breaks the property of \"Title of handoffsNeverStall\":"))
            #expect(broken.contains("✗ hand-off through one slot: schedule 2 breaks it"))
            #expect(broken.contains("Replay: swift run grader replay BoundedBuffer 2 --check 1"))
            let held = ModelSearch.render(report("pass"), exercise: failing, replaySuffix: "").joined(separator: "\n")
            #expect(held.contains("No order of the synchronization calls broke it (hand-off through one slot; 3 schedules in all)"))
            #expect(held.contains("That does not clear \"Title of handoffsNeverStall\": its failure above was observed"))
            #expect(!held.contains("breaks it"))
            let clean = ModelSearch.render(report("pass"), exercise: passing, replaySuffix: "").joined(separator: "\n")
            #expect(clean.contains("No order") && !clean.contains("does not clear"))
            let undecided = ModelSearch.render(report("undecided"), exercise: failing, replaySuffix: "").joined(separator: "\n")
            #expect(undecided.contains("could not judge it: no twin operation for 2 s") && undecided.contains("No verdict"))
            #expect(!undecided.contains("breaks the property") && !undecided.contains("step |"))
            let unrelated = ModelVerdict.report(ModelRunReport(exercise: "BoundedBuffer", budget: 1_000, checks: []))
            #expect(ModelSearch.render(unrelated, exercise: failing, replaySuffix: "").isEmpty)
            let cannot = ModelSearch.render(.cannotRun("boom"), exercise: failing, replaySuffix: "").joined(separator: "\n")
            #expect(cannot.contains("could not run: boom") && cannot.contains("not a pass"))
        }
        Language.$override.withValue(.simplifiedChinese) {
            let broken = ModelSearch.render(report("fail"), exercise: failing, replaySuffix: "").joined(separator: "\n")
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
