import Foundation

/// `grader checklist` and `grader manifest`: print, or write with `--write`; `grader portability`:
/// the portability check alone (verify runs it too).
enum MaintenanceCommands {
    static func checklist(write: Bool, layout: KataLayout, rubric: Rubric) throws -> Int32 {
        guard write else {
            print(Checklist.render(rubric: rubric, layout: layout, language: Language.current))
            return 0
        }
        for language in Language.allCases {
            let file = layout.checklistFile(in: language)
            try Data(Checklist.render(rubric: rubric, layout: layout, language: language).utf8).write(to: file, options: .atomic)
            print("wrote \(layout.relative(file))")
        }
        return 0
    }

    static func manifest(write: Bool, layout: KataLayout, rubric: Rubric) throws -> Int32 {
        let manifest = IntegrityManifest.compute(layout: layout, rubric: rubric)
        if write { try manifest.write(layout: layout); print("wrote Grader/integrity.json") } else {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(manifest), as: UTF8.self))
        }
        return 0
    }

    static func portability(layout: KataLayout) throws -> Int32 {
        var problems = PortabilityCheck(root: layout.root).problems()
        #if os(Linux)
        problems += try AsyncContextCheck.learnerAndSolutionBuilds(root: layout.root)
        #endif
        for problem in problems { print(problem) }
        print(problems.isEmpty ? "portability: no problem found" : "portability: \(problems.count) problems")
        return problems.isEmpty ? 0 : 1
    }
}
