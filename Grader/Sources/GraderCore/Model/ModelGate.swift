import Foundation
import Synchronization

/// The systematic checks decide. For an exercise the model covers, its systematic checks
/// (`Model/Checks/<Exercise>/`) run in the grade: always for the exercise in focus once the
/// learner has started it, and for any other exercise whose stress checks all pass (before it
/// could be called complete). A schedule that breaks a property, or that makes the code trap,
/// fails the graded stress checks that state that property (`ModelCheck.stress`): a stress loop
/// catches such an order only when the machine happens to take it; the model takes it every time.
///
/// Only a broken property changes a verdict. "Not applicable" (synchronization the model has no
/// twin of), "could not judge" (a loop with no synchronization call) and "could not run" (a
/// build that fails with the twins, a run past its deadline) change nothing and are said as such:
/// right code the model cannot follow must not lose points for it.
///
/// A verdict read from a report (every check explored) is remembered per content of the graded
/// code and of the model (`.kata/model-checks-1.json`), so an unchanged exercise is not explored
/// again; anything else is tried again next time.
struct ModelGate {
    var layout: KataLayout
    var rubric: Rubric
    var mode: BuildMode
    var progress: any GradingProgress
    /// False: neither read nor write remembered verdicts.
    var remembers = true

    /// A schedule takes milliseconds; one that runs this long is a loop the model cannot
    /// interleave: given up sooner than `grader model` does.
    static let watchdogSeconds = 2
    /// Every check of a right exercise takes about 2 s here; code that sleeps inside its locks
    /// makes every schedule slow. Past this: "did not end in time", no verdict.
    static let deadlineSeconds: Double = 60
    /// The first modeled build of an exercise (under a minute on a 2-core machine).
    static let buildDeadlineSeconds: Double = 600
    /// Runners of different exercises side by side (each keeps one core busy); one is a machine
    /// with one core.
    static let runnersAtOnce = min(2, max(1, ProcessInfo.processInfo.activeProcessorCount))

    struct Remembered: Codable {
        var contentID: String
        var report: ModelRunReport
    }

    var memoryFile: URL { layout.stateDirectory.appendingPathComponent("model-checks-1.json") }

    func memory() -> [String: Remembered] {
        guard remembers else { return [:] }
        return (try? JSONDecoder().decode([String: Remembered].self, from: Data(contentsOf: memoryFile))) ?? [:]
    }

    /// The exercises to judge: covered by the model, compiled, and either in focus and started
    /// (their broken orders cost the points of the properties they break) or with every stress
    /// check passing (about to be complete).
    static func exercisesToJudge(_ results: [ExerciseResult], focus: String?, isStarted: (String) -> Bool) -> [String] {
        results.filter { result in
            // A suite that hung or crashed is judged too: the model runs its own small programs,
            // and an order that breaks the code is often what made the suite hang or crash.
            guard ModelApplicability.exercises.contains(result.name) else { return false }
            if case .doesNotCompile = result.status { return false }
            return result.otherChecksPass || (result.name == focus && isStarted(result.name))
        }.map(\.name)
    }

    /// Those of `names` whose verdict is not remembered: the ones that need a modeled run.
    func unknown(_ names: [String]) -> [String] {
        let memory = memory()
        return names.filter { memory[key($0)]?.contentID != contentID(of: $0) }
    }

    /// Judges `names` (remembered or run now) and records what breaks in `results`. Returns each
    /// exercise's verdict, for the text under the grade.
    func apply(to results: inout [ExerciseResult], judging names: [String]) -> [String: ModelVerdict] {
        var memory = memory()
        var verdicts: [String: ModelVerdict] = [:]
        // Runners are built one after another (one build folder) and run while the next one is
        // built: a runner keeps one core busy, a build both. At most `runnersAtOnce` run together.
        let ran = Mutex([String: ModelVerdict]())
        let running = DispatchGroup()
        let slots = DispatchSemaphore(value: Self.runnersAtOnce)
        for name in names {
            if Interrupt.requested { break }
            if let remembered = memory[key(name)], remembered.contentID == contentID(of: name) {
                verdicts[name] = .report(remembered.report)
                continue
            }
            progress.note(L("Exploring the orders of \(name)'s synchronization calls (systematic checks)…",
                            "正在探索 \(name) 的同步调用顺序（系统检查）…"))
            var command = ModelCommand(layout: layout, rubric: rubric, mode: mode)
            let progress = progress
            command.building = { progress.note($0) }
            switch command.prepare(name, buildDeadline: Self.buildDeadlineSeconds) {
            case .verdict(let verdict):
                verdicts[name] = verdict
            case .runner(let runner):
                slots.wait()
                running.enter()
                let arguments = ["check", "--budget", "\(ModelCommand.budget)", "--watchdog", "\(Self.watchdogSeconds)"]
                let command = command
                DispatchQueue.global().async {
                    let verdict = command.execute(runner, name, arguments, deadline: Self.deadlineSeconds)
                    ran.withLock { $0[name] = verdict }
                    slots.signal()
                    running.leave()
                }
            }
        }
        running.wait()
        verdicts.merge(ran.withLock { $0 }) { _, new in new }
        if Interrupt.requested { return verdicts }
        for name in names {
            guard let verdict = verdicts[name], !(memory[key(name)]?.contentID == contentID(of: name)) else { continue }
            if case .report(let report) = verdict, report.checks.allSatisfy({ ["pass", "fail", "crash"].contains($0.verdict) }) {
                memory[key(name)] = Remembered(contentID: contentID(of: name), report: report)
            } else {
                memory[key(name)] = nil
            }
        }
        if remembers {
            try? FileManager.default.createDirectory(at: layout.stateDirectory, withIntermediateDirectories: true)
            try? JSONEncoder().encode(memory).write(to: memoryFile, options: .atomic)
        }
        for index in results.indices {
            guard case .report(let report)? = verdicts[results[index].name], let exercise = rubric.exercise(named: results[index].name) else { continue }
            for check in report.checks where check.verdict == "fail" || check.verdict == "crash" {
                results[index].recordBrokenOrder(check, exercise: exercise, replay: Self.replayCommand(check, exercise: exercise.name, mode: mode))
            }
        }
        return verdicts
    }

    static func replayCommand(_ check: ModelRunReport.Check, exercise: String, mode: BuildMode) -> String {
        "swift run grader replay \(exercise) \(check.number.map(String.init) ?? "?") --check \(check.index)"
            + ModelCommand.replaySuffix(mode, exercise: exercise)
    }

    func key(_ exercise: String) -> String { mode.sourceFolder(of: exercise) }

    /// Names every file the verdict depends on: the graded code without comments and blank lines,
    /// its given code, and the model (runtime, twins, the exercise's checks and runner).
    func contentID(of exercise: String) -> String {
        var text = "model gate 1\n"
        for path in IntegrityManifest.files(under: mode.sourceFolder(of: exercise), layout: layout) {
            text += path + " " + (RaceCheck.codeID(of: path, layout: layout) ?? "-") + "\n"
        }
        for folder in ["Given/\(exercise)", "Model/KataModel", "Model/Twins", "Model/Checks/\(exercise)", "Model/Runners/\(exercise)"] {
            for path in IntegrityManifest.files(under: folder, layout: layout) {
                text += path + " " + (IntegrityManifest.blobID(of: path, layout: layout) ?? "-") + "\n"
            }
        }
        return SHA1.gitBlobID(Data(text.utf8))
    }
}

extension ExerciseResult {
    /// A systematic check found an order of the synchronization calls that breaks the property
    /// of some stress checks (or makes the code trap): those checks fail, whatever the stress
    /// loop saw this time, and the checks that require them earn nothing.
    mutating func recordBrokenOrder(_ check: ModelRunReport.Check, exercise: Rubric.Exercise, replay: String) {
        let title = check.title ?? check.name
        let number = check.number.map(String.init) ?? "?"
        let what = check.verdict == "crash"
            ? L("makes your code crash", "让你的代码崩溃")
            : L("breaks this property", "违反了这项性质")
        let message = L("""
            The systematic check "\(title)" found an order of the threads' synchronization calls that \(what) (schedule \(number)). The stress loop takes such an order only when the machine happens to, so this check can pass in one run and fail in the next; the model takes it every time.
            See it drawn: \(replay)
            """, """
            系统检查“\(title)”找到了一种线程同步调用的顺序，它\(what)（调度 \(number)）。压力循环只有在机器碰巧走到这种顺序时才会遇到它，所以这项检查可能这次通过、下次失败；模型每次都会走到它。
            查看图示：\(replay)
            """)
        for test in check.stress ?? [] {
            guard let index = checks.firstIndex(where: { $0.test == test }) else { continue }
            if checks[index].passed {
                checks[index].message = message
                checks[index].file = nil
                checks[index].line = nil
            } else if let earlier = checks[index].message, !earlier.contains(replay) {
                checks[index].message = earlier + "\n" + message
            }
            checks[index].passed = false
            checks[index].earned = 0
            checks[index].withheld = nil
        }
        Scoring.withholdPointsOfUnmetRequirements(&checks, exercise: exercise)
        orderFindings.append(OrderFinding(title: title, tests: check.stress ?? [], replay: replay, crash: check.verdict == "crash"))
        switch status {
        case .lookingForRaces, .complete, .completeOnThisPlatform, .inProgress, .raceCheckNotRun, .raceCheckCouldNotRun:
            if let failing = checks.first(where: { !$0.passed && $0.test != Rubric.raceCheckTest }) {
                status = .inProgress(firstFailing: failing.title)
            }
            if let race = checks.firstIndex(where: { $0.test == Rubric.raceCheckTest }), !checks[race].passed, raceVerdict == nil {
                checks[race].message = Scoring.raceCheckWaits
            }
        default:
            break
        }
    }
}
