import Foundation
import Synchronization

/// Builds the ThreadSanitizer copy of an exercise in the background while the learner works, at
/// the lowest priority, so that the first time every other check passes the race check finds it
/// built (the first build takes a minute or more; an incremental one, seconds); and before it, for
/// an exercise the model covers, the modeled build its systematic checks run from (`ModelGate`).
///
/// It builds exactly what the race check will build (the same scratch path and the same
/// `KATA_EXCLUDE`), so the race check's own `swift build` has little left to do. If the race check
/// starts while this build still runs, SwiftPM makes it wait for this one (one build per scratch
/// path at a time), then it goes on from there.
final class RaceCheckPrebuild: Sendable {
    let layout: KataLayout
    let rubric: Rubric
    /// The learner's build system: the race check builds with it.
    let buildSystem: BuildSystem
    /// Exercises whose prebuild has started in this watch session.
    private let started = Mutex(Set<String>())
    private let stopping = Mutex(false)
    private let running = Mutex(0)

    init(layout: KataLayout, rubric: Rubric, buildSystem: BuildSystem) {
        self.layout = layout
        self.rubric = rubric
        self.buildSystem = buildSystem
    }

    /// Starts the prebuild for `exercise` unless it has been started already in this session.
    func start(_ exercise: String) {
        let isNew = started.withLock { $0.insert(exercise).inserted }
        guard isNew, !stopping.withLock({ $0 }) else { return }
        let mode = BuildMode(sanitize: true, buildSystem: buildSystem)
        let excluded = rubric.exercises.map(\.name).filter { $0 != exercise }
        let log = layout.stateDirectory.appendingPathComponent("runs/prebuild-tsan.log")
        try? FileManager.default.createDirectory(at: log.deletingLastPathComponent(), withIntermediateDirectories: true)
        running.withLock { $0 += 1 }
        let model = ModelApplicability.exercises.contains(exercise)
            ? ModelCommand(layout: layout, rubric: rubric, mode: BuildMode(buildSystem: buildSystem)).buildInvocation(exercise) : nil
        let thread = Thread { [self] in
            defer { running.withLock { $0 -= 1 } }
            // The modeled build first: the systematic checks run in every grade of a started
            // exercise, the race check only once every other check passes.
            if let model {
                _ = try? ChildProcess.run(
                    ["nice", "-n", "19"] + model.arguments, in: layout.root, environment: model.environment,
                    outputFile: log.deletingLastPathComponent().appendingPathComponent("prebuild-model.log"),
                    limits: ChildLimits(deadline: 1_800)) { self.stopping.withLock { $0 } }
            }
            guard !stopping.withLock({ $0 }) else { return }
            _ = try? ChildProcess.run(
                ["nice", "-n", "19"] + mode.buildArguments, in: layout.root,
                environment: mode.environment(excluding: excluded), outputFile: log,
                limits: ChildLimits(deadline: 1_800)) { self.stopping.withLock { $0 } }
        }
        thread.start()
    }

    /// Stops a build that is still running and waits (a little) for it to go.
    func stop() {
        stopping.withLock { $0 = true }
        let end = Date(timeIntervalSinceNow: 3)
        while running.withLock({ $0 }) > 0 && Date() < end { usleep(20_000) }
    }
}
