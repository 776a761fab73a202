import Foundation
import KataBench

/// `grader bench [exercise ...]`: measures the learner's implementation against the classic
/// alternatives, on this machine. It builds the benchmarks in release mode in a scratch path of
/// their own (`.build-bench`, so the debug builds are never disturbed), runs each in a child
/// process with a deadline, and prints a table and bars per workload; `--json` and `--svg`
/// write every figure and a chart. It changes no score and no history, and refuses an exercise
/// whose suite is not complete: a racy implementation measured is a crash or a meaningless number.
struct BenchCommand {
    var layout: KataLayout
    var rubric: Rubric
    var arguments: Arguments

    /// The exercises that have a benchmark (`Benchmarks/Executables/<Name>`), in course order.
    var benchmarked: [String] {
        rubric.exercises.map(\.name).filter {
            FileManager.default.fileExists(atPath: layout.root.appendingPathComponent("Benchmarks/Executables/\($0)/main.swift").path)
        }
    }

    func run() throws -> Int32 {
        let style = Style.detect()
        let names = arguments.exercises.isEmpty ? benchmarked : try GraderApp.select(arguments.exercises, from: rubric).map(\.name)
        for name in names where !benchmarked.contains(name) {
            throw GraderError.badArguments("\(name) has no benchmark; these do: \(benchmarked.joined(separator: ", "))")
        }
        let progress = TerminalProgress(style: style)
        let ready = try completeExercises(names, progress: progress)
        progress.clear()
        var summaries: [BenchSummary] = []
        for name in names {
            guard ready.contains(name) else {
                print(style.yellow(L("\(name): not measured, because its suite is not complete yet.", "\(name)：没有测量，因为它的测试还没有全部通过。"))
                    + L(" A racy or unfinished implementation measured is a crash or a meaningless number. Finish it first: swift run grader \(name)",
                        "测量有竞争或没写完的实现，得到的是崩溃或没有意义的数字。先完成它：swift run grader \(name)"))
                continue
            }
            progress.note(L("Building the \(name) benchmark in release mode…", "正在以 release 模式构建 \(name) 的基准测试…"))
            try build(name)
            progress.note(L("Measuring \(name)\(arguments.quick ? " (quick)" : "")…", "正在测量 \(name)\(arguments.quick ? "（快速）" : "")…"))
            let summary = try measure(name)
            progress.clear()
            print(BenchText.render(summary, style: style))
            print("")
            summaries.append(summary)
        }
        if !summaries.isEmpty {
            print(style.dim(L("Measured on \(Self.machineDescription). Absolute figures vary between machines and runs; the ratios travel better. See each exercise's README for what to expect.",
                              "测量环境：\(Self.machineDescription)。绝对数值随机器和运行而变，比值更有参考意义。各练习的 README 里说明了预期结果。")))
        }
        if let path = arguments.jsonFile {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(summaries).write(to: URL(fileURLWithPath: path), options: .atomic)
        }
        if let path = arguments.svgFile {
            try Data(BenchChart.render(summaries).utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        }
        return summaries.count == names.count ? 0 : 1
    }

    /// Grades the exercises (no history is written) and returns those that are complete,
    /// race check included.
    func completeExercises(_ names: [String], progress: any GradingProgress) throws -> Set<String> {
        // What the race check found complete, unchanged since, needs no new grade.
        let raceCheck = RaceCheck(layout: layout, rubric: rubric, mode: BuildMode(buildSystem: arguments.resolvedBuildSystem), progress: progress)
        let known = Set(names.filter(raceCheck.rememberedComplete))
        let unknown = names.filter { !known.contains($0) }
        guard !unknown.isEmpty else { return known }
        progress.note(L("Checking that \(unknown.joined(separator: ", ")) \(unknown.count == 1 ? "is" : "are") complete before measuring…",
                        "测量前先确认 \(unknown.joined(separator: "、")) 已完成…"))
        var options = arguments
        options.exercises = unknown
        options.solutions = false
        options.repetitions = 1
        options.raceCheck = true
        let report = try GradeCommand(layout: layout, rubric: rubric, arguments: options)
            .grade(try GraderApp.select(unknown, from: rubric), progress: progress)
        return known.union(report.exercises.filter(\.isComplete).map(\.name))
    }

    static let scratchPath = ".build-bench"
    static let environment = ["KATA_BENCH": "1", "KATA_SOLUTIONS": "0", "KATA_EXCLUDE": "", "KATA_VARIANT": ""]

    /// Where the release build puts the benchmark executables, as SwiftPM says.
    func binPath() throws -> URL {
        try SwiftPMFacts(layout: layout).binPath(
            key: "\(arguments.resolvedBuildSystem.rawValue) \(Self.scratchPath) release",
            arguments: ["swift", "build", "--show-bin-path", "-c", "release", "--scratch-path", Self.scratchPath] + arguments.resolvedBuildSystem.swiftPMArguments,
            environment: Self.environment)
    }

    func build(_ name: String) throws {
        let log = layout.stateDirectory.appendingPathComponent("bench/build-\(name).log")
        try FileManager.default.createDirectory(at: log.deletingLastPathComponent(), withIntermediateDirectories: true)
        let termination = try ChildProcess.run(
            // Cross-module optimization lets the compiler specialize your generic types for the
            // benchmark's Int keys, as it does the baselines': otherwise the comparison would
            // measure unspecialized generic calls, not your synchronization.
            ["swift", "build", "-c", "release", "--scratch-path", Self.scratchPath, "--product", "bench-\(name)",
             "-Xswiftc", "-cross-module-optimization"] + arguments.resolvedBuildSystem.swiftPMArguments,
            in: layout.root, environment: Self.environment,
            outputFile: log, deadline: 1_200)
        guard termination == .exited(0) else {
            throw GraderError.cannotRun(L("The \(name) benchmark did not build (\(termination)); see \(layout.relative(log)).", "\(name) 的基准测试构建失败（\(termination)）；见 \(layout.relative(log))。"))
        }
    }

    func measure(_ name: String) throws -> BenchSummary {
        let folder = layout.stateDirectory.appendingPathComponent("bench")
        let output = folder.appendingPathComponent("\(name).json")
        try? FileManager.default.removeItem(at: output)
        let log = folder.appendingPathComponent("\(name).log")
        let termination = try ChildProcess.run(
            [try binPath().appendingPathComponent("bench-\(name)").path, "--output", output.path] + (arguments.quick ? ["--quick"] : []),
            in: layout.root, outputFile: log, deadline: arguments.quick ? 30 : 120)
        guard termination == .exited(0), let data = try? Data(contentsOf: output),
              let report = try? JSONDecoder().decode(BenchReport.self, from: data) else {
            throw GraderError.cannotRun(L("The \(name) benchmark did not finish (\(termination)); see \(layout.relative(log)).", "\(name) 的基准测试没有运行完（\(termination)）；见 \(layout.relative(log))。"))
        }
        return BenchSummary(report)
    }

    static var machineDescription: String {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        return "\(Platform.name), \(cores) core\(cores == 1 ? "" : "s"), \(ProcessInfo.processInfo.physicalMemory >> 30) GiB"
    }
}
