import Foundation

/// `grader verify`, the maintainer check that CI runs: every solution passes every check, every
/// untouched stub scores zero without hanging or crashing, the rubric matches the suites and
/// Package.swift, CHECKLIST.md and the integrity manifest are current, and the tests of the test
/// support and of the grader pass. Prints one line per step and a closing
/// "verify: N passed, N failed" line.
struct VerifyCommand {
    var layout: KataLayout
    var rubric: Rubric
    let style = Style.detect()

    func run() throws -> Int32 {
        var passed = 0
        var failed = 0
        func step(_ name: String, _ problems: [String]) {
            if problems.isEmpty {
                passed += 1
                print(style.green("✔ ") + name)
            } else {
                failed += 1
                print(style.red("✘ ") + name)
                for problem in problems { print("    " + problem) }
            }
        }
        let started = Date()
        step("rubric lists the exercises of Package.swift, in order", packageProblems())
        step("every exercise has README.md and at least 3 hints in HINTS.md", documentProblems())
        step("CHECKLIST.md is current (swift run grader checklist --write)", checklistProblems())
        step("Grader/integrity.json is current (swift run grader manifest --write)", manifestProblems())

        let progress = TerminalProgress(style: style)
        let solutions = try GradingSession(layout: layout, rubric: rubric, mode: BuildMode(solutions: true), progress: progress)
            .grade(rubric.exercises)
        progress.clear()
        step("every solution passes every check (\(seconds(solutions)))", solutionProblems(solutions))
        step("suites declare exactly the rubric's checks, with the titles CHECKLIST.md shows", declarationProblems())

        let stubs = try GradingSession(layout: layout, rubric: rubric, mode: BuildMode(), progress: progress)
            .grade(rubric.exercises)
        progress.clear()
        step("every untouched stub scores zero, in progress, no hang, no crash (\(seconds(stubs)))", stubProblems(stubs))
        step("KataTestSupport and grader tests pass", try supportTestProblems())

        print("Took \(String(format: "%.1f", Date().timeIntervalSince(started))) s.")
        print("verify: \(passed) passed, \(failed) failed")
        return failed == 0 ? 0 : 1
    }

    func seconds(_ results: [ExerciseResult]) -> String {
        "suites \(String(format: "%.1f", results.reduce(0) { $0 + $1.seconds })) s"
    }

    func packageProblems() -> [String] {
        guard let manifest = try? String(contentsOf: layout.root.appendingPathComponent("Package.swift"), encoding: .utf8),
              let start = manifest.range(of: "let allExercises = ["),
              let end = manifest[start.upperBound...].range(of: "]") else {
            return ["cannot find `let allExercises = [ … ]` in Package.swift"]
        }
        let names = manifest[start.upperBound..<end.lowerBound]
            .split(separator: "\n").compactMap { Checklist.firstStringLiteral(in: String($0)) }
        let rubricNames = rubric.exercises.map(\.name)
        return names == rubricNames ? [] : ["Package.swift has \(names), the rubric has \(rubricNames)"]
    }

    func documentProblems() -> [String] {
        rubric.exercises.flatMap { exercise -> [String] in
            var problems: [String] = []
            let readme = layout.exerciseDirectory(exercise.name).appendingPathComponent("README.md")
            if ((try? String(contentsOf: readme, encoding: .utf8)) ?? "").count < 200 {
                problems.append("\(layout.relative(readme)) is missing or nearly empty")
            }
            let hints = Hints.parse((try? String(contentsOf: layout.hintsFile(exercise.name), encoding: .utf8)) ?? "")
            if hints.count < 3 { problems.append("\(layout.relative(layout.hintsFile(exercise.name))) has \(hints.count) hints") }
            return problems
        }
    }

    func checklistProblems() -> [String] {
        let current = (try? String(contentsOf: layout.checklistFile, encoding: .utf8)) ?? ""
        return current == Checklist.render(rubric: rubric, layout: layout) ? [] : ["CHECKLIST.md differs from what the rubric and suites give"]
    }

    func manifestProblems() -> [String] {
        guard let committed = IntegrityManifest.load(layout: layout) else { return ["Grader/integrity.json is missing"] }
        let current = IntegrityManifest.compute(layout: layout, rubric: rubric)
        var problems = committed.modifiedProtectedFiles(comparedWith: current).map { "protected file changed: \($0)" }
        let stubPaths = Set(committed.stubs.keys).union(current.stubs.keys)
        problems += stubPaths.filter { committed.stubs[$0] != current.stubs[$0] }.sorted().map { "stub changed: \($0)" }
        return problems
    }

    func solutionProblems(_ results: [ExerciseResult]) -> [String] {
        results.flatMap { result -> [String] in
            guard result.status != .complete else { return [] }
            let failing = result.checks.filter { !$0.passed }.map { "\($0.test): \($0.message ?? "")" }
            return ["\(result.name): \(result.status.keyword)"] + failing.prefix(5).map { "  " + $0 }
                + (JSONReport.describe(result.status).0.map { ["  " + $0] } ?? [])
        }
    }

    /// The rubric's tests and the suites' tests are the same set; the titles parsed for
    /// CHECKLIST.md are the display names Swift Testing reports.
    func declarationProblems() -> [String] {
        rubric.exercises.flatMap { exercise -> [String] in
            let stream = EventStream(contentsOf: layout.stateDirectory.appendingPathComponent("runs/\(exercise.name).jsonl"))
            let declared = stream.declared.filter { $0.id.hasPrefix("\(exercise.name)Tests.") }
            var problems: [String] = []
            let rubricNames = exercise.checks.map(\.test)
            if Set(rubricNames).count != rubricNames.count { problems.append("\(exercise.name): the rubric names a test twice") }
            let declaredNames = declared.map(\.name)
            if Set(declaredNames).count != declaredNames.count { problems.append("\(exercise.name): two tests share a function name") }
            for name in Set(declaredNames).subtracting(rubricNames).sorted() { problems.append("\(exercise.name): test \(name)() has no points in the rubric") }
            for name in Set(rubricNames).subtracting(declaredNames).sorted() { problems.append("\(exercise.name): the rubric names \(name)(), which the suite does not declare") }
            let titles = Checklist.titles(layout: layout, exercise: exercise.name)
            for test in declared where titles[test.name] != test.displayName {
                problems.append("\(exercise.name): \(test.name)() is titled \"\(test.displayName)\" but CHECKLIST.md would say \"\(titles[test.name] ?? "-")\"")
            }
            // Within one file, the rubric keeps the order in which the checks are written.
            let byFile = Dictionary(grouping: declared, by: \.file)
            for (file, tests) in byFile where problems.isEmpty {
                let written = tests.sorted { $0.line < $1.line }.map(\.name)
                let listed = rubricNames.filter(written.contains)
                if written != listed { problems.append("\(exercise.name): the rubric lists \(listed) but \(file) declares them in the order \(written)") }
            }
            return problems
        }
    }

    func stubProblems(_ results: [ExerciseResult]) -> [String] {
        results.flatMap { result -> [String] in
            var problems: [String] = []
            if case .inProgress = result.status {} else {
                problems.append("\(result.name): \(result.status.keyword) — \(JSONReport.describe(result.status).0 ?? "")")
            }
            for check in result.checks where check.passed {
                problems.append("\(result.name): \(check.test)() passes on the untouched stub")
            }
            return problems
        }
    }

    func supportTestProblems() throws -> [String] {
        let stream = layout.stateDirectory.appendingPathComponent("runs/support.jsonl")
        let log = layout.stateDirectory.appendingPathComponent("runs/support.log")
        try? FileManager.default.removeItem(at: stream)
        let mode = BuildMode()
        var arguments = mode.testArguments(exercise: "Support", eventStream: stream.path, excluded: [])
        if let filter = arguments.firstIndex(of: "--filter") { arguments[filter + 1] = "^(KataTestSupportTests|GraderCoreTests)\\." }
        let termination = try ChildProcess.run(arguments, in: layout.root, environment: mode.environment(excluding: []), outputFile: log, deadline: 120)
        let events = EventStream(contentsOf: stream)
        var problems: [String] = []
        if termination != .exited(0) { problems.append("the support and grader tests ended with \(termination); see \(layout.relative(log))") }
        if events.declared.isEmpty { problems.append("no support or grader tests ran") }
        for test in events.declared where events.runs[test.id]?.passed != true {
            problems.append("\(test.id): \(events.runs[test.id]?.issues.first?.message ?? "did not finish")")
        }
        return problems
    }
}
