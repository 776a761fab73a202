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

    static func portability(layout: KataLayout, rubric: Rubric, buildSystem: BuildSystem) throws -> Int32 {
        var problems = PortabilityCheck(root: layout.root).problems()
        #if os(Linux)
        problems += try AsyncContextCheck.learnerAndSolutionBuilds(layout: layout, buildSystem: buildSystem, exercises: rubric.exercises.map(\.name))
        #endif
        for problem in problems { print(problem) }
        print(problems.isEmpty ? "portability: no problem found" : "portability: \(problems.count) problems")
        return problems.isEmpty ? 0 : 1
    }

    /// Lists the Chinese documents that are missing or behind their English text; with `stamp`,
    /// first marks that translation as made from its English text as it is now (after a person
    /// brought it up to date).
    static func translations(stamp: String?, addMessages: Bool = false, layout: KataLayout, rubric: Rubric) throws -> Int32 {
        let check = TranslationCheck(layout: layout, rubric: rubric)
        if addMessages {
            let catalog = check.catalogWithEveryMessage()
            try Data(catalog.fileText().utf8).write(to: layout.root.appendingPathComponent(MessageCatalog.path), options: .atomic)
            let empty = catalog.entries.reduce(0) { $0 + $1.pairs.filter { $0.chinese.isEmpty }.count }
            print("\(MessageCatalog.path): every message of the suites has an entry; \(empty) wait for their Chinese (empty values)")
        }
        if let stamp {
            let twin = layout.relative(URL(fileURLWithPath: stamp, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)))
            guard let english = check.englishDocuments().first(where: { TranslationCheck.twin(of: $0) == twin }) else {
                throw GraderError.badArguments("\(stamp) is not the translation of a learner document")
            }
            let url = layout.root.appendingPathComponent(twin)
            let blob = SHA1.gitBlobID(try Data(contentsOf: layout.root.appendingPathComponent(english)))
            var lines = ((try? String(contentsOf: url, encoding: .utf8)) ?? "").components(separatedBy: "\n")
            let line = TranslationCheck.stamp(for: english, blob: blob)
            if lines.first?.hasPrefix("<!-- zh-Hans translation of") == true { lines[0] = line } else { lines.insert(line, at: 0) }
            try Data(lines.joined(separator: "\n").utf8).write(to: url, options: .atomic)
            print("stamped \(twin) as made from \(english) (blob \(blob.prefix(12)))")
        }
        let problems = check.documentProblems() + check.titleProblems() + check.messageProblems()
        for problem in problems { print(problem) }
        print(problems.isEmpty ? "translations: every document, title and message is up to date" : "translations: \(problems.count) problems")
        return problems.isEmpty ? 0 : 1
    }
}
