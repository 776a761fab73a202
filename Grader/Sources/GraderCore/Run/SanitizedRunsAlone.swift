import Foundation

extension GradingSession {
    /// With the native build system every suite runs in one process, and each exercise's race
    /// verdict is read from all of that process's reports. On Apple platforms a frame names its
    /// file by base name only (`atos`; compiler-rt `sanitizer_symbolizer_mac.cpp`), and base names
    /// are shared across exercises (`AsyncOperation.swift`, `Given.swift`): a race in one
    /// exercise's file would be read as another's. An exercise whose reports name a base name that
    /// another exercise of the process also has is run again alone, and its verdict is read from
    /// that run only (`SanitizedRunVerdict` says "could not run" for a run still shared).
    func runAloneWhereBaseNamesAreShared(_ outcomes: inout [String: (run: SuiteRun, seconds: Double)],
                                         exercises: [Rubric.Exercise], runner: SuiteRunner) throws {
        let ambiguous = exercises.filter { exercise in
            guard let run = outcomes[exercise.name]?.run, !run.sharedWith.isEmpty else { return false }
            return !SanitizerReport.sharedBaseNames(
                in: run.sanitizerText, files: sanitizedFiles(exercise.name), otherFiles: run.sharedWith.flatMap(sanitizedFiles)).isEmpty
        }
        guard !ambiguous.isEmpty, !Interrupt.requested else { return }
        let merged = MergedProgress(progress)
        let alone = Self.inParallel(ambiguous.count, width: Self.parallelSuiteProcesses) { index -> Result<(SuiteRun, Double), any Error> in
            let exercise = ambiguous[index]
            var own = runner
            own.progress = merged.part(exercise.name)
            defer { merged.ended(exercise.name) }
            let started = Date()
            return Result {
                var run = try own.run(name: "alone-\(exercise.name)", filter: SuiteRunner.filter(suitesOf: [exercise.name]),
                                      target: "\(exercise.name)Tests", parallel: true, deadline: deadline(exercise))
                run.stream = run.stream.restricted(toIDsWithPrefix: "\(exercise.name)Tests.")
                return (run, Date().timeIntervalSince(started))
            }
        }
        for (exercise, result) in zip(ambiguous, alone) {
            // Interrupted before it started: the shared run stays, and its verdict is "could not run".
            guard let result, let seconds = outcomes[exercise.name]?.seconds else { continue }
            let (run, extra) = try result.get()
            outcomes[exercise.name] = (run, seconds + extra)
        }
    }
}
