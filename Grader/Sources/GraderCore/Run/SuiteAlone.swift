import Foundation

/// One suite run alone, as `swift test --filter <Name>Tests` runs it (in parallel), timed: what a
/// learner waits for after every save. `grader verify` prints it for every suite, and the loop
/// benchmark takes its median.
enum SuiteAlone {
    /// Wall seconds of one run of `exercise`'s suite in the build of `mode` (already built), its
    /// event stream and log in `directory`; nil when the test binary could not be found or started.
    static func seconds(_ exercise: Rubric.Exercise, mode: BuildMode, layout: KataLayout, directory: URL) -> Double? {
        let started = Date()
        guard let products = try? TestProducts.of(mode, layout: layout) else { return nil }
        let termination = try? ChildProcess.run(
            products.command(target: "\(exercise.name)Tests")
                + BuildMode.testOptions(filter: SuiteRunner.filter(suitesOf: [exercise.name]), eventStream: directory.appendingPathComponent("\(exercise.name).jsonl").path),
            in: layout.root, environment: mode.environment(excluding: []),
            outputFile: directory.appendingPathComponent("\(exercise.name).log"), deadline: exercise.deadline)
        guard termination != nil else { return nil }
        return Date().timeIntervalSince(started)
    }
}
