import Foundation
import Testing
@testable import GraderCore

/// `grader model` and `grader replay`: what they parse, what "not applicable" sees,
/// and that anything but a report the runner wrote and exited after is "could not run".
@Suite("Model command")
struct ModelCommandTests {
    @Test("model takes one exercise; replay takes an exercise, a schedule and --check N")
    func parsing() throws {
        #expect(try Arguments.parse(["model", "BoundedBuffer"]).command == .model("BoundedBuffer"))
        let replay = try Arguments.parse(["replay", "Deadlocks", "3", "--check", "2"])
        #expect(replay.command == .replay("Deadlocks", "3") && replay.modelCheck == 2)
        #expect(throws: GraderError.self) { try Arguments.parse(["model"]) }
        #expect(throws: GraderError.self) { try Arguments.parse(["replay", "Deadlocks"]) }
        #expect(throws: GraderError.self) { try Arguments.parse(["replay", "Deadlocks", "3", "--check", "0"]) }
        #expect(throws: GraderError.self) { try ModelCommand.select("AsyncOperation") }
    }

    @Test("Not applicable: synchronization without a twin is found in code, not in comments or strings")
    func untwinnedUses() {
        let flagged: [(String, String)] = [
            ("let queue = OperationQueue()", "OperationQueue"),
            ("var lock = os_unfair_lock()", "os_unfair_lock"),
            ("pthread_mutex_lock(&mutex)", "pthread"),
            ("actor Store {", "actor (Swift concurrency)"),
            ("Task { store.put(1) }", "Task (Swift concurrency)"),
            ("let value = await store.get()", "await (Swift concurrency)"),
            ("let count = Atomic<Int>(0)", "Atomic"),
            ("let lock = NSConditionLock(condition: 0)", "NSConditionLock"),
            ("let source = DispatchSource.makeReadSource(fileDescriptor: fd)", "DispatchSource"),
            ("var reader: DispatchSourceRead?", "DispatchSource"),
            ("Thread { work() }.start()", "Thread (a thread of its own)"),
            ("final class Worker: Thread {", "Thread (a thread of its own)"),
        ]
        for (line, what) in flagged {
            let uses = ModelApplicability.uses(inSource: "import Foundation\n" + line + "\n", file: "F.swift")
            #expect(uses.map(\.what) == [what], "\(line)")
            #expect(uses.first?.line == 2)
        }
        let fine = """
        // An OperationQueue would do, or an actor; see os_unfair_lock.
        let message = "Task { await x } uses OperationQueue"
        private var initializingThread: Thread?
        if initializing !== Thread.current { }
        let actor = 1
        queue.async { lock.lock(); defer { lock.unlock() } }
        private var timer: DispatchSourceTimer?
        let timer = DispatchSource.makeTimerSource(queue: timerQueue)
        """
        #expect(ModelApplicability.uses(inSource: fine, file: "F.swift").isEmpty)
    }

    @Test("The stubs, the solutions and the grader variants of the five exercises are all in the model's scope")
    func courseCodeInScope() throws {
        let layout = try #require(KataLayout.find())
        for exercise in ModelApplicability.exercises {
            var folders = ["Exercises/\(exercise)", "Solutions/\(exercise)"]
            let variants = layout.root.appendingPathComponent("Grader/Variants/\(exercise)")
            for name in (try? FileManager.default.contentsOfDirectory(atPath: variants.path)) ?? [] where !name.hasSuffix(".json") {
                folders.append("Grader/Variants/\(exercise)/\(name)")
            }
            for folder in folders {
                let uses = ModelApplicability.uses(in: layout.root.appendingPathComponent(folder), exercise: exercise)
                #expect(uses.isEmpty, "\(folder): \(uses)")
            }
        }
        // OperationGate is not in the modeled build, and it is built on OperationQueue.
        let gate = try String(contentsOf: layout.root.appendingPathComponent("Solutions/GatesAndOnce/OperationGate.swift"), encoding: .utf8)
        #expect(!ModelApplicability.uses(inSource: gate, file: "OperationGate.swift").isEmpty)
    }

    @Test("A member a twin lacks is 'not applicable' at the learner's path; another compile error is 'could not run'")
    func buildErrors() {
        let root = "/course"
        let missing = "/course/Model/Learner/BoundedBuffer/Exercise/BoundedBuffer.swift:12:30: error: type 'DispatchQueue' has no member 'main'\n"
        #expect(ModelBuildErrors.read(missing, exercise: "BoundedBuffer", root: root)
            == .notApplicable([.init(what: "DispatchQueue.main", file: "Exercises/BoundedBuffer/BoundedBuffer.swift", line: 12)]))
        let other = "/course/Model/Learner/Deadlocks/Solution/Bank.swift:3:5: error: cannot find 'x' in scope\n"
        guard case .cannotRun(let why) = ModelBuildErrors.read(other, exercise: "Deadlocks", root: root) else {
            Issue.record("a compile error is not a verdict")
            return
        }
        #expect(why.contains("Solutions/Deadlocks/Bank.swift:3: error: cannot find 'x' in scope"))
        guard case .cannotRun = ModelBuildErrors.read("error: something else\n", exercise: "Deadlocks", root: root) else {
            Issue.record("a failed build without compile errors is not a verdict")
            return
        }
        // An error in the model's own files (a twin that does not compile with another toolchain)
        // is not the learner's, nor a use of a type without a twin.
        let twin = "/course/Model/Learner/BoundedBuffer/Twins/DispatchQueueTwin.swift:40:9: error: type 'DispatchQueue' has no member 'main'\n"
        guard case .cannotRun(let own) = ModelBuildErrors.read(twin, exercise: "BoundedBuffer", root: root) else {
            Issue.record("an error in a twin was read as the learner's use of a type")
            return
        }
        #expect(own.contains("the model's own code") && own.contains("nothing is wrong with yours") && !own.contains("your code does not compile"))
    }

    static let passing = ModelRunReport(exercise: "Deadlocks", budget: 1_000, checks: [
        .init(verdict: "pass", index: 1, name: "opposite transfers", schedules: 1_000, seconds: 0.2),
    ])

    @Test("Only a runner that exited 0 after writing a sensible report gives a verdict")
    func failsClosed() throws {
        let good = try JSONEncoder().encode(Self.passing)
        #expect(ModelRunResult.read(termination: .exited(0), report: good, output: "", exercise: "Deadlocks") == .report(Self.passing))
        let crashed = ModelRunResult.read(termination: .signalled(4), report: nil, output: "model: check 1\nmodel: check 2\nFatal error: boom\n", exercise: "Deadlocks")
        guard case .cannotRun(let why) = crashed else { Issue.record("a crash is not a verdict"); return }
        #expect(why.contains("signal 4") && why.contains("check 2") && why.contains("Fatal error: boom"))
        // A kill is not a trap: named, its cause not guessed.
        guard case .cannotRun(let killed) = ModelRunResult.read(termination: .signalled(9), report: nil, output: "model: check 1\n", exercise: "Deadlocks") else {
            Issue.record("a killed runner is not a verdict")
            return
        }
        #expect(killed.contains("signal 9") && !killed.contains("trap"))
        let cases: [(Termination, Data?)] = [
            (.exited(0), nil), (.exited(0), Data("{".utf8)), (.exited(1), good), (.timedOut, good), (.exitedEarly(0), good),
            (.exited(0), try JSONEncoder().encode(ModelRunReport(exercise: "Deadlocks", budget: 1_000, checks: []))),
            (.exited(0), try JSONEncoder().encode(ModelRunReport(exercise: "BoundedBuffer", budget: 1_000, checks: Self.passing.checks))),
            (.exited(0), try JSONEncoder().encode(ModelRunReport(exercise: "Deadlocks", budget: 1_000, checks: [
                .init(verdict: "maybe", index: 1, name: "x", schedules: 1, seconds: 0)]))),
        ]
        for (termination, report) in cases {
            guard case .cannotRun = ModelRunResult.read(termination: termination, report: report, output: "", exercise: "Deadlocks") else {
                Issue.record("\(termination) with \(report.map { String(decoding: $0, as: UTF8.self) } ?? "no report") gave a verdict")
                continue
            }
        }
        #expect(ModelCommand.exitCode(.report(Self.passing)) == 0)
        var failing = Self.passing
        failing.checks[0].verdict = "undecided"
        #expect(ModelCommand.exitCode(.report(failing)) == 1, "a check that could not be judged is not a pass")
        #expect(ModelCommand.exitCode(.cannotRun("x")) == 2)
        #expect(ModelCommand.exitCode(.notApplicable([])) == 3)
    }

    @Test("The frame in both languages: could not run, not applicable, a failure with its replay line")
    func bothLanguages() {
        var failing = Self.passing
        failing.checks.append(.init(verdict: "fail", index: 2, name: "audit beside a transfer", schedules: 3, seconds: 0.01,
                                    number: 2, code: "1200", picture: " step | transfer\n✗ Deadlock"))
        let use = ModelApplicability.Use(what: "OperationQueue", file: "Bank.swift", line: 4)
        let english = Language.$override.withValue(.english) {
            [ModelText.couldNotRun("boom"), ModelText.notApplicable([use], exercise: "Deadlocks"),
             ModelText.checkResult(.report(failing), exercise: "Deadlocks", replaySuffix: "")]
        }
        #expect(english[0].hasPrefix("could not run: boom") && english[0].contains("not a pass"))
        #expect(english[1].hasPrefix("not applicable: uses OperationQueue (Bank.swift:4)") && english[1].contains("lose no points"))
        #expect(english[2].contains("✓ opposite transfers") && english[2].contains("✗ audit beside a transfer: schedule 2 breaks it"))
        #expect(english[2].contains("Replay: swift run grader replay Deadlocks 2 --check 2 (the same as code:1200)"))
        #expect(english[2].contains("1 of 2 systematic checks held."))
        let chinese = Language.$override.withValue(.simplifiedChinese) {
            [ModelText.couldNotRun("boom"), ModelText.notApplicable([use], exercise: "Deadlocks"),
             ModelText.checkResult(.report(failing), exercise: "Deadlocks", replaySuffix: "")]
        }
        #expect(chinese[0].hasPrefix("无法运行：boom"))
        #expect(chinese[1].hasPrefix("不适用：用到了 OperationQueue (Bank.swift:4)"))
        #expect(chinese[2].contains("重放：swift run grader replay Deadlocks 2 --check 2（等同于 code:1200）"))
    }

    @Test("A grade names `grader model` in the next step when a stress check of an exercise the model covers fails, and only then")
    func gradeNamesTheModel() {
        let crashed = Scoring.score(Fixture.exercise, runs: [Fixture.stream], terminations: [.signalled(11)], deadline: 30, seconds: 1)
        var covered = crashed
        covered.name = "BoundedBuffer"
        let line = "Interleavings: swift run grader model BoundedBuffer"
        #expect(TextReport.nextStep(covered, style: .plain).contains { $0.contains(line) })
        #expect(!TextReport.nextStep(crashed, style: .plain).contains { $0.contains("grader model") }, "Demo is not modeled")
        var broken = covered
        broken.status = .doesNotCompile(CompileError(file: "Exercises/BoundedBuffer/BoundedBuffer.swift", line: 1, column: 1, message: "x", exercise: "BoundedBuffer"))
        #expect(!TextReport.nextStep(broken, style: .plain).contains { $0.contains("grader model") })
    }
}

/// The real thing, for maintainers (`KATA_MAINTAINER=1`): builds `.build-model` and explores.
@Suite("Model command, built", .enabled(if: ProcessInfo.processInfo.environment["KATA_MAINTAINER"] == "1"))
struct ModelCommandBuiltTests {
    func command(_ words: [String]) throws -> ModelCommand {
        ModelCommand(layout: try #require(KataLayout.find()), rubric: try Rubric.load(from: try #require(KataLayout.find()).rubricFile),
                     arguments: try Arguments.parse(words))
    }

    @Test("BoundedBuffer's SubtleRace variant deadlocks at the same schedule every run, and replay draws the same picture; the solution passes")
    func variantAndSolution() throws {
        let variant = try command(["model", "BoundedBuffer", "--variant", "SubtleRace"])
        let first = variant.run("BoundedBuffer", ["check", "--budget", "1000"])
        let second = variant.run("BoundedBuffer", ["check", "--budget", "1000"])
        guard case .report(let report) = first, let failure = report.checks.first(where: { $0.verdict == "fail" }) else {
            Issue.record("SubtleRace was not found: \(first)")
            return
        }
        #expect(first == second.withoutTimes(matching: first))
        #expect(failure.picture?.contains("Deadlock") == true)
        let replayed = variant.run("BoundedBuffer", ["replay", "\(failure.index)", "\(failure.number ?? 0)"])
        guard case .report(let again) = replayed else { Issue.record("replay did not run: \(replayed)"); return }
        #expect(again.checks.first?.verdict == "fail" && again.checks.first?.code == failure.code)
        let solution = try command(["model", "BoundedBuffer", "--solutions"]).run("BoundedBuffer", ["check", "--budget", "1000"])
        #expect(ModelCommand.exitCode(solution) == 0, "\(solution)")
    }
}

extension ModelVerdict {
    /// The same verdict with `other`'s times (a run's seconds differ; nothing else may).
    func withoutTimes(matching other: ModelVerdict) -> ModelVerdict {
        guard case .report(var report) = self, case .report(let reference) = other, report.checks.count == reference.checks.count else { return self }
        for index in report.checks.indices { report.checks[index].seconds = reference.checks[index].seconds }
        return .report(report)
    }
}
