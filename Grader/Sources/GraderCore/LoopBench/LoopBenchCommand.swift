import Foundation

/// `grader loop-bench [exercise]`: the learner's loop, timed in a temporary clone of the course's
/// HEAD, each figure `--runs` times (medians, lowest and highest), split into its phases; prints
/// Markdown and writes `--markdown FILE` and `--json FILE`. A maintainer's measurement, never a
/// pass or a fail: the README's timing table is made from its Markdown, on a quiet machine.
struct LoopBenchCommand {
    var layout: KataLayout
    var rubric: Rubric
    var arguments: Arguments

    static let groups = ["fresh", "watch", "stubs", "solutions", "suites"]
    static let defaultExercise = "ThreadSafeDictionary"

    func run() throws -> Int32 {
        let groups = arguments.only ?? Self.groups
        for group in groups where !Self.groups.contains(group) {
            throw GraderError.badArguments("--only takes \(Self.groups.joined(separator: ",")), not \(group)")
        }
        let runs = arguments.runs ?? (arguments.quick ? 1 : 3)
        let watched = try GraderApp.select([arguments.exercises.first ?? Self.defaultExercise], from: rubric)[0]
        let suites = try GraderApp.select(arguments.suites ?? (arguments.quick ? [watched.name] : []), from: rubric)
        let buildSystem = arguments.resolvedBuildSystem
        let workspace = try LoopBenchWorkspace(origin: layout, buildSystem: buildSystem)
        defer { workspace.remove() }

        let loadBefore = MachineFacts.loadAverage()
        var machine = LoopBenchReport.Machine(
            date: MachineFacts.date(), cores: MachineFacts.cores, os: MachineFacts.operatingSystem(),
            toolchain: MachineFacts.toolchain(scratch: workspace.folder), buildSystem: buildSystem.rawValue,
            commit: MachineFacts.commit(of: layout.root, scratch: workspace.folder), loadBefore: loadBefore, loadAfter: [])
        note("in \(workspace.folder.path): \(runs) run\(runs == 1 ? "" : "s") of \(groups.joined(separator: ", ")); load average \(LoopBenchReport.load(loadBefore))")

        var measure = LoopBenchMeasure(workspace: workspace, rubric: rubric, runs: runs, note: note)
        let warm = try workspace.clone("clone-1")
        var rows: [LoopBenchReport.Row] = []
        if groups.contains("fresh") { rows += try measure.freshClones(first: warm) }
        if groups.contains("watch") { rows += try measure.watchSaves(in: warm, exercise: watched.name) }
        if groups.contains("stubs") { rows += try measure.stubsGrade(in: warm) }
        if groups.contains("solutions") { rows += try measure.solutionsGrade(in: warm) }
        if groups.contains("suites") { rows += try measure.suitesAlone(suites, in: warm) }
        machine.loadAfter = MachineFacts.loadAverage()

        let report = LoopBenchReport(machine: machine, runs: runs, rows: rows)
        let markdown = report.markdown()
        print(markdown)
        if let path = arguments.markdownFile { try Data(markdown.utf8).write(to: URL(fileURLWithPath: path), options: .atomic) }
        if let path = arguments.jsonFile { try report.json().write(to: URL(fileURLWithPath: path), options: .atomic) }
        return 0
    }

    /// Progress on standard error, so that standard output is the Markdown alone.
    func note(_ text: String) {
        FileHandle.standardError.write(Data("loop-bench: \(text)\n".utf8))
    }
}
