import Foundation

/// What a runner (`model-<Exercise>`, which `grader model` and `grader replay` build and start)
/// found, written as JSON to the file `--report` names. The grader reads only this file: a run
/// that ends without writing it (a crash in the code under test, a stall, a kill) is a run that
/// could not be judged, never a pass.
public struct ModelRunReport: Codable, Sendable, Equatable {
    public struct Check: Codable, Sendable, Equatable {
        /// pass: every schedule of the budget completed and every property held. fail: a schedule
        /// broke a property or deadlocked. undecided: a schedule could not be judged (a thread
        /// looping with no twin operation, or a spin past the step bound).
        public var verdict: String
        /// 1-based, in the order of the exercise's `modelChecks`: what `grader replay --check` takes.
        public var index: Int
        /// The check's English name (what `kata-model` takes), and its title in the language asked for.
        public var name: String
        public var title: String?
        /// The graded stress checks whose property it states (`ModelCheck.stress`).
        public var stress: [String]?
        public var schedules: Int
        public var seconds: Double
        public var number: UInt64?
        public var code: String?
        /// The swim lanes, in the language asked for.
        public var picture: String?
    }

    public var exercise: String
    public var budget: Int
    public var checks: [Check]
    /// The check being explored while the run goes on; nil once the run has ended. A report that
    /// still has one was left by a run that died inside that check.
    public var running: Check?
}

/// The command line of a runner:
///
///     model-<Exercise> check [--budget N] [--stress TEST,…] [--watchdog SECONDS] [--lang en|zh-Hans] [--report FILE]
///     model-<Exercise> replay CHECK (NUMBER | code:DECISIONS) [--lang …] [--report FILE]
///
/// Before each check it writes `model: check N` to standard error, so that when the code under
/// test crashes the process the grader can say in which check.
public enum ModelRunner {
    public static func main(exercise: String, checks: [ModelCheck]) -> Never {
        var arguments = Array(CommandLine.arguments.dropFirst())
        func option(_ name: String) -> String? {
            guard let index = arguments.firstIndex(of: name), arguments.indices.contains(index + 1) else { return nil }
            defer { arguments.removeSubrange(index...index + 1) }
            return arguments[index + 1]
        }
        let budget = option("--budget").flatMap(Int.init) ?? 1_000
        let language = option("--lang").flatMap(SwimLanes.Language.init(rawValue:)) ?? .english
        let reportFile = option("--report")
        // The grader's search under a failing stress check: only the checks that state the
        // property of one of these tests, until the first that does not hold, with a shorter
        // watchdog (a schedule takes milliseconds; a stalled one leaves a thread spinning).
        let stress = option("--stress").map { Set($0.split(separator: ",").map(String.init)) }
        let watchdog = option("--watchdog").flatMap(Double.init) ?? 10
        var report = ModelRunReport(exercise: exercise, budget: budget, checks: [])

        switch arguments.first {
        case "check":
            for (offset, check) in checks.enumerated() {
                if let stress, stress.isDisjoint(with: check.stress) { continue }
                progress("model: check \(offset + 1)")
                // Written before the check runs: if the code under test traps in it, the grader
                // still knows which check it was, and which schedule (the last line said).
                report.running = ModelRunReport.Check(
                    verdict: "running", index: offset + 1, name: check.name, title: check.title(language), stress: check.stress,
                    schedules: 0, seconds: 0)
                write(report, to: reportFile)
                let result = Explorer(budget: budget, watchdog: watchdog)
                    .explore(starting: { progress("model: schedule \($0)") }, check.body)
                report.running = nil
                var entry = ModelRunReport.Check(
                    verdict: "pass", index: offset + 1, name: check.name, title: check.title(language), stress: check.stress,
                    schedules: result.tried, seconds: result.seconds)
                if let failure = result.failure {
                    entry.verdict = verdict(of: failure.schedule.outcome)
                    entry.number = failure.number
                    entry.code = failure.code
                    entry.picture = SwimLanes.render(failure, language: language, replayLine: false)
                }
                report.checks.append(entry)
                if stress != nil, entry.verdict != "pass" { break }
            }
        case "replay":
            guard arguments.count == 3, let index = Int(arguments[1]), checks.indices.contains(index - 1) else { usage(checks) }
            let check = checks[index - 1]
            let token = arguments[2]
            let explorer = Explorer(budget: 1)
            progress("model: check \(index)")
            let start = Date()
            let schedule: Schedule
            if token.hasPrefix("code:") {
                guard let replayed = explorer.replay(code: String(token.dropFirst(5)), check.body) else { usage(checks) }
                schedule = replayed
            } else if let number = UInt64(token) {
                schedule = explorer.replay(number, check.body)
            } else {
                usage(checks)
            }
            let header = language.lines(
                "Replay of \(token) (\(schedule.strategyName))", "重放 \(token)（\(SwimLanes.chinese(schedule.strategyName))）")
            report.checks.append(ModelRunReport.Check(
                verdict: schedule.failed ? verdict(of: schedule.outcome) : "pass", index: index, name: check.name,
                title: check.title(language), stress: check.stress, schedules: 1,
                seconds: Date().timeIntervalSince(start), number: UInt64(token), code: DecisionCode.encode(schedule.decisions),
                picture: SwimLanes.render(schedule, header: header, window: 40, language: language)))
        default:
            usage(checks)
        }

        if reportFile == nil {
            FileHandle.standardOutput.write(((try? JSONEncoder().encode(report)) ?? Data()) + Data("\n".utf8))
        } else {
            write(report, to: reportFile)
        }
        // The parked threads of a deadlocked schedule are still there: leave without waiting.
        exit(0)
    }

    /// Replaces the report file (atomically: a crash never leaves half a report).
    static func write(_ report: ModelRunReport, to file: String?) {
        guard let file else { return }
        let data = (try? JSONEncoder().encode(report)) ?? Data()
        guard (try? data.write(to: URL(fileURLWithPath: file), options: .atomic)) != nil else { exit(3) }
    }

    static func verdict(of outcome: Scheduler.Outcome) -> String {
        switch outcome {
        case .completed: "pass"
        case .violation, .deadlock: "fail"
        case .stepLimit, .stalled: "undecided"
        }
    }

    static func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    static func usage(_ checks: [ModelCheck]) -> Never {
        progress("usage: model-<Exercise> check [--budget N] [--stress TEST,…] [--watchdog SECONDS] [--lang en|zh-Hans] [--report FILE]")
        progress("       model-<Exercise> replay CHECK (NUMBER | code:DECISIONS) [--lang en|zh-Hans] [--report FILE]")
        for (offset, check) in checks.enumerated() { progress("  check \(offset + 1): \(check.name)") }
        exit(2)
    }
}
