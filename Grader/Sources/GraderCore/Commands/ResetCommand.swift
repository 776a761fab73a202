import Foundation

/// `grader reset <exercise>`: puts the untouched stub back, after asking, and keeps the
/// learner's version beside it (`Exercises/<Name>.saved-<time>/`), so nothing is lost.
///
/// The originals come from git by the blob ids in the integrity manifest.
enum ResetCommand {
    static func run(_ name: String, yes: Bool, layout: KataLayout, rubric: Rubric) throws -> Int32 {
        let exercise = try GraderApp.select([name], from: rubric)[0]
        guard let manifest = IntegrityManifest.load(layout: layout) else {
            throw GraderError.cannotRun(L("Grader/integrity.json is missing, so the original stub is unknown", "缺少 Grader/integrity.json，无法知道原始的练习模板"))
        }
        let prefix = "Exercises/\(exercise.name)/"
        let originals = manifest.stubs.filter { $0.key.hasPrefix(prefix) }
        guard !originals.isEmpty else { throw GraderError.cannotRun(L("the manifest lists no stub files for \(exercise.name)", "清单里没有 \(exercise.name) 的模板文件")) }

        var contents: [String: Data] = [:]
        for (path, blob) in originals {
            guard let data = gitBlob(blob, layout: layout) else {
                throw GraderError.cannotRun(L("git does not have the original of \(path) (blob \(blob)); is this a git clone of the kata?",
                                              "git 里没有 \(path) 的原始版本（blob \(blob)）；这是 kata 的 git 克隆吗？"))
            }
            contents[path] = data
        }

        let stamp = timestamp()
        let folder = layout.exerciseDirectory(exercise.name)
        let saved = folder.deletingLastPathComponent().appendingPathComponent("\(exercise.name).saved-\(stamp)")
        if !yes {
            print(L("Reset \(prefix) to the untouched stub? Your current version will be kept in Exercises/\(saved.lastPathComponent)/. [y/N] ",
                    "把 \(prefix) 恢复成未改动的练习模板吗？你现在的版本会保存在 Exercises/\(saved.lastPathComponent)/。[y/N] "), terminator: "")
            guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                print(L("Nothing was changed.", "什么都没有改。"))
                return 1
            }
        }
        let fm = FileManager.default
        try fm.copyItem(at: folder, to: saved)
        // Files the learner added are kept in the saved copy only: the stub is exactly the original.
        for path in IntegrityManifest.files(under: "Exercises/\(exercise.name)", layout: layout) where originals[path] == nil {
            try fm.removeItem(at: layout.root.appendingPathComponent(path))
        }
        for (path, data) in contents {
            let url = layout.root.appendingPathComponent(path)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url, options: .atomic)
        }
        print(L("\(prefix) is back to the untouched stub; your version is in Exercises/\(saved.lastPathComponent)/.",
                "\(prefix) 已恢复成未改动的练习模板；你的版本在 Exercises/\(saved.lastPathComponent)/。"))
        return 0
    }

    static func gitBlob(_ id: String, layout: KataLayout) -> Data? {
        let output = layout.stateDirectory.appendingPathComponent("git-blob.tmp")
        try? FileManager.default.createDirectory(at: layout.stateDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }
        // `git cat-file` writes only the blob to standard output; errors would be mixed in,
        // so they are sent nowhere by checking the object exists first.
        guard (try? ChildProcess.run(["git", "cat-file", "-e", id], in: layout.root, outputFile: output, deadline: 30)) == .exited(0),
              (try? ChildProcess.run(["git", "cat-file", "blob", id], in: layout.root, outputFile: output, deadline: 30)) == .exited(0)
        else { return nil }
        return try? Data(contentsOf: output)
    }

    static func timestamp() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        return formatter.string(from: Date())
    }
}
