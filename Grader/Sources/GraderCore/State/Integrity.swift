import Foundation

/// The integrity manifest, `Grader/integrity.json`: git blob ids of the files a score depends
/// on (the suites, the test support, the given code, Package.swift, the rubric), of the untouched
/// stubs, and of the reference solutions (to notice a learner's files copied from them).
///
/// The grader warns when a protected file differs, so an instructor can trust a score; `reset`
/// asks git for a stub's original by its id. `grader manifest --write` refreshes it, and
/// `grader verify` fails when it is stale.
public struct IntegrityManifest: Codable, Equatable, Sendable {
    /// Files a score depends on: relative path → git blob id.
    public var protected: [String: String]
    /// The untouched stubs and learner documents: relative path → git blob id.
    public var stubs: [String: String]
    /// The reference solutions: relative path → git blob id.
    public var solutions: [String: String]

    /// Computes the manifest from the files as they are now.
    public static func compute(layout: KataLayout, rubric: Rubric) -> IntegrityManifest {
        var protected: [String: String] = [:]
        for path in ["Package.swift", "Grader/rubric.json"] + files(under: "Tests", layout: layout) + files(under: "Given", layout: layout) {
            protected[path] = blobID(of: path, layout: layout)
        }
        var stubs: [String: String] = [:]
        var solutions: [String: String] = [:]
        for exercise in rubric.exercises {
            for path in files(under: "Exercises/\(exercise.name)", layout: layout) {
                stubs[path] = blobID(of: path, layout: layout)
            }
            for path in files(under: "Solutions/\(exercise.name)", layout: layout) {
                solutions[path] = blobID(of: path, layout: layout)
            }
        }
        return IntegrityManifest(
            protected: protected.compactMapValues { $0 }, stubs: stubs.compactMapValues { $0 },
            solutions: solutions.compactMapValues { $0 })
    }

    public static func load(layout: KataLayout) -> IntegrityManifest? {
        guard let data = try? Data(contentsOf: layout.manifestFile) else { return nil }
        return try? JSONDecoder().decode(IntegrityManifest.self, from: data)
    }

    public func write(layout: KataLayout) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try (encoder.encode(self) + Data("\n".utf8)).write(to: layout.manifestFile, options: .atomic)
    }

    /// Protected files that differ from the manifest, were removed, or were added under Tests/.
    public func modifiedProtectedFiles(comparedWith current: IntegrityManifest) -> [String] {
        let paths = Set(protected.keys).union(current.protected.keys)
        return paths.filter { protected[$0] != current.protected[$0] }.sorted()
    }

    /// True when every Swift file of the learner's exercise is byte for byte the reference
    /// solution's file of the same name, and there are the same files: for an instructor, a
    /// sign that the solution was copied. Compared by blob id with the manifest, so deleting
    /// `Solutions/` does not hide it.
    /// Whether the learner has changed any Swift file of `exercise` from the untouched stub.
    public func isStarted(_ exercise: String, layout: KataLayout) -> Bool {
        Self.files(under: "Exercises/\(exercise)", layout: layout).filter { $0.hasSuffix(".swift") }
            .contains { stubs[$0] != Self.blobID(of: $0, layout: layout) }
    }

    public func isCopiedFromSolution(_ exercise: String, layout: KataLayout) -> Bool {
        let learner = Dictionary(uniqueKeysWithValues: Self.files(under: "Exercises/\(exercise)", layout: layout)
            .filter { $0.hasSuffix(".swift") }
            .map { (String($0.dropFirst("Exercises/\(exercise)/".count)), Self.blobID(of: $0, layout: layout)) })
        let reference = Dictionary(uniqueKeysWithValues: solutions
            .filter { $0.key.hasPrefix("Solutions/\(exercise)/") && $0.key.hasSuffix(".swift") }
            .map { (String($0.key.dropFirst("Solutions/\(exercise)/".count)), Optional($0.value)) })
        return !reference.isEmpty && learner == reference
    }

    static func blobID(of path: String, layout: KataLayout) -> String? {
        BlobCache.blobID(of: layout.root.appendingPathComponent(path))
    }

    /// Regular files below `folder`, relative to the root, sorted; hidden files are skipped.
    static func files(under folder: String, layout: KataLayout) -> [String] {
        FileTree.relativePaths(under: layout.root.appendingPathComponent(folder)) { _, url in FileTree.isRegularFile(url) }
            .map { folder + "/" + $0 }
            .sorted()
    }
}
