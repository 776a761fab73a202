import Foundation

/// Builds the package for one mode. An exercise that does not compile is left out
/// (`KATA_EXCLUDE`) and the build tried again, so the others can still be graded.
struct Builder {
    var layout: KataLayout
    var rubric: Rubric
    var mode: BuildMode
    var progress: any GradingProgress
    var log: URL
    /// A cold build on two cores takes under a minute; this is far beyond.
    var deadline: Double = 1_200

    /// Returns the compile errors by exercise and every exercise left out of the build.
    func build(excluding initial: [String]) throws -> (broken: [String: CompileError], excluded: [String]) {
        var excluded = initial
        var broken: [String: CompileError] = [:]
        let suites = rubric.exercises.map(\.name).filter { !initial.contains($0) }.map { "\($0)Tests" }
        let stamp = BuildStamp(layout: layout, mode: mode, excluded: initial,
                               products: try TestProducts.of(mode, layout: layout).binaries(of: suites))
        if stamp.isCurrent() {
            PhaseTimings.shared.add(PhaseName.buildSkipped(sanitized: mode.sanitize), seconds: 0)
            return (broken, excluded)
        }
        for _ in 0...rubric.exercises.count {
            progress.building(mode, excluded: excluded)
            let lines = TimedLines()
            let termination = try ChildProcess.run(
                mode.buildArguments, in: layout.root, environment: mode.environment(excluding: excluded),
                outputFile: log, limits: ChildLimits(deadline: deadline, keptOutput: 8 << 20), lines: lines)
            let parts = SwiftPMPhases.split(lines, end: Date())
            for part in SwiftPMPhases.Part.allCases where parts[part] ?? 0 > 0 {
                PhaseTimings.shared.add(PhaseName.build(sanitized: mode.sanitize, part), seconds: parts[part] ?? 0)
            }
            if termination == .exited(0) {
                if broken.isEmpty { stamp.record() }
                return (broken, excluded)
            }
            if termination == .interrupted { throw GraderError.cannotRun("interrupted") }
            let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            let errors = CompilerDiagnostics.errors(
                in: output, exercises: rubric.exercises.map(\.name), root: layout.root.path)
            var newlyBroken = false
            for error in errors {
                guard let name = error.exercise, !excluded.contains(name) else { continue }
                broken[name] = broken[name] ?? error
                excluded.append(name)
                newlyBroken = true
            }
            // Every exercise being graded is broken (watch mode grades one): there is nothing
            // left to build for, so the errors are the answer, at once.
            if newlyBroken, rubric.exercises.map(\.name).allSatisfy({ excluded.contains($0) }) { return (broken, excluded) }
            if !newlyBroken {
                let shared = errors.first.map { "\($0.file):\($0.line): error: \($0.message)" }
                let tail = output.split(separator: "\n").suffix(15).joined(separator: "\n")
                throw GraderError.cannotRun(
                    L("The build failed outside the exercises (\(termination)); grading cannot run.\n", "练习以外的代码构建失败（\(termination)），无法评分。\n") + (shared ?? tail))
            }
        }
        throw GraderError.cannotRun(L("The build kept failing; see \(layout.relative(log)).", "构建一再失败；见 \(layout.relative(log))。"))
    }
}
