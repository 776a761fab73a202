import Foundation

/// `grader checklist` and `grader manifest`: print, or write with `--write`.
enum MaintenanceCommands {
    static func checklist(write: Bool, layout: KataLayout, rubric: Rubric) throws -> Int32 {
        let text = Checklist.render(rubric: rubric, layout: layout)
        if write { try Data(text.utf8).write(to: layout.checklistFile, options: .atomic); print("wrote CHECKLIST.md") } else { print(text) }
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
}
