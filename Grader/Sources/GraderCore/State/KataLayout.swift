import Foundation

/// Where things are in a Concurrency Kata checkout.
public struct KataLayout: Sendable {
    public var root: URL

    public init(root: URL) { self.root = root.standardizedFileURL }

    /// Finds the checkout that contains `directory`: the nearest folder upwards with both
    /// `Package.swift` and `Grader/rubric.json`.
    public static func find(from directory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) -> KataLayout? {
        var candidate = directory.standardizedFileURL
        while true {
            let fm = FileManager.default
            if fm.fileExists(atPath: candidate.appendingPathComponent("Package.swift").path),
               fm.fileExists(atPath: candidate.appendingPathComponent("Grader/rubric.json").path) {
                return KataLayout(root: candidate)
            }
            let parent = candidate.deletingLastPathComponent()
            if parent.path == candidate.path { return nil }
            candidate = parent
        }
    }

    public var rubricFile: URL { root.appendingPathComponent("Grader/rubric.json") }
    public var manifestFile: URL { root.appendingPathComponent("Grader/integrity.json") }
    public var checklistFile: URL { root.appendingPathComponent("CHECKLIST.md") }
    /// CHECKLIST.md, or its translation (`CHECKLIST.zh-Hans.md`).
    public func checklistFile(in language: Language) -> URL {
        language.documentSuffix.map { root.appendingPathComponent("CHECKLIST.\($0).md") } ?? checklistFile
    }
    /// The grader's own state (history, hints shown, saved learner versions); git-ignored.
    public var stateDirectory: URL { root.appendingPathComponent(".kata") }

    public func exerciseDirectory(_ name: String) -> URL { root.appendingPathComponent("Exercises/\(name)") }
    public func solutionDirectory(_ name: String) -> URL { root.appendingPathComponent("Solutions/\(name)") }
    public func hintsFile(_ name: String) -> URL { exerciseDirectory(name).appendingPathComponent("HINTS.md") }

    /// The hints in `language` when they exist (`HINTS.zh-Hans.md`), else the English ones.
    public func hintsFile(_ name: String, in language: Language) -> URL {
        if let suffix = language.documentSuffix {
            let translated = exerciseDirectory(name).appendingPathComponent("HINTS.\(suffix).md")
            if FileManager.default.fileExists(atPath: translated.path) { return translated }
        }
        return hintsFile(name)
    }

    /// `url`'s path inside the checkout, or the whole path when it is outside.
    public func relative(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        return MacPrivatePaths.relative(path, to: root.path) ?? path
    }
}
