import Foundation
import Synchronization

extension GradingSession {
    /// How many suite processes run side by side when each suite has its own (Swift Build): as
    /// many as there are cores, at least two. Within each process Swift Testing runs the checks
    /// in parallel on a pool as wide as the cores; more processes than cores would only make
    /// every check slower, and checks with deadlines then wait on one another.
    static var parallelSuiteProcesses: Int { max(2, ProcessInfo.processInfo.activeProcessorCount) }

    /// The fast path: every suite of `exercises` in parallel, returning each exercise's run (its
    /// stream still holds other suites' tests when they shared a process).
    ///
    /// With the native build system the package has one test product: one process runs every
    /// suite, with the longest deadline. With Swift Build each suite is a product of its own: one
    /// process per suite, `parallelSuiteProcesses` at a time, each with its own event stream,
    /// deadline and process group, as `runBlamingOneAtATime` then treats each exercise apart.
    func runTogether(_ exercises: [Rubric.Exercise], runner: SuiteRunner) throws -> [String: SuiteRun] {
        guard runner.testCommand == nil, runner.products?.perTarget == true else {
            let together = try runner.run(
                name: "all", filter: SuiteRunner.filter(suitesOf: exercises.map(\.name)), parallel: true,
                deadline: exercises.map(deadline).max() ?? Rubric.defaultTimeoutSeconds)
            let names = exercises.map(\.name)
            return Dictionary(uniqueKeysWithValues: names.map { name in
                var run = together
                run.sharedWith = names.filter { $0 != name }
                return (name, run)
            })
        }
        let merged = MergedProgress(progress)
        let deadlines = exercises.map(deadline)
        let results = Self.inParallel(exercises.count, width: Self.parallelSuiteProcesses) { index in
            let exercise = exercises[index]
            var own = runner
            own.progress = merged.part(exercise.name)
            let result = Result {
                try own.run(name: "all-\(exercise.name)", filter: SuiteRunner.filter(suitesOf: [exercise.name]),
                            target: "\(exercise.name)Tests", parallel: true, deadline: deadlines[index])
            }
            merged.ended(exercise.name)
            return result
        }
        var runs: [String: SuiteRun] = [:]
        for (exercise, result) in zip(exercises, results) {
            // A suite that never started (Ctrl-C came first) has no result: it was interrupted.
            runs[exercise.name] = try result?.get()
                ?? SuiteRun(stream: EventStream(), termination: .interrupted, sanitizerText: "")
        }
        return runs
    }
}

extension GradingSession {
    /// `body(0) … body(count - 1)`, `width` at a time, each on a thread of its own; nil for an
    /// index that never started because Ctrl-C came first.
    static func inParallel<T: Sendable>(_ count: Int, width: Int, _ body: @escaping @Sendable (Int) -> T) -> [T?] {
        let results = Mutex([Int: T]())
        let next = Mutex(0)
        let finished = DispatchGroup()
        for _ in 0..<min(width, count) {
            finished.enter()
            Thread {
                defer { finished.leave() }
                while !Interrupt.requested {
                    let index = next.withLock { index in defer { index += 1 }; return index }
                    guard index < count else { return }
                    let result = body(index)
                    results.withLock { $0[index] = result }
                }
            }.start()
        }
        finished.wait()
        return results.withLock { results in (0..<count).map { results[$0] } }
    }
}

/// Live progress from processes that run side by side: each reports its own running checks,
/// and the screen shows them all, the longest-running first.
final class MergedProgress: Sendable {
    let base: any GradingProgress
    private let running = Mutex([String: [(test: DeclaredTest, seconds: Double)]]())

    init(_ base: any GradingProgress) { self.base = base }

    /// The progress one process reports to.
    func part(_ name: String) -> any GradingProgress { Part(owner: self, name: name) }

    /// That process has ended: its checks no longer run.
    func ended(_ name: String) { update(name, []) }

    fileprivate func update(_ name: String, _ checks: [(test: DeclaredTest, seconds: Double)]) {
        // Under the lock: the screen gets one report at a time, each with every process's checks.
        running.withLock { running in
            running[name] = checks
            base.running(running.values.flatMap { $0 }.sorted { $0.seconds > $1.seconds })
        }
    }

    private struct Part: GradingProgress {
        let owner: MergedProgress
        let name: String
        func building(_ mode: BuildMode, excluded: [String]) { owner.base.building(mode, excluded: excluded) }
        func running(_ checks: [(test: DeclaredTest, seconds: Double)]) { owner.update(name, checks) }
        func note(_ text: String) { owner.base.note(text) }
    }
}
