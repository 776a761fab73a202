import Foundation

/// One student's copy of the course, as an instructor collected it (a clone, a download).
struct StudentCopy: Sendable {
    /// The name the class report uses: the folder's name, made unique.
    var name: String
    var root: URL

    /// Names for `folders`: each folder's last component, with " (2)", " (3)" after repeats.
    static func named(_ folders: [String]) -> [StudentCopy] {
        var seen: [String: Int] = [:]
        return folders.map { folder in
            let root = URL(fileURLWithPath: folder).standardizedFileURL
            let base = root.lastPathComponent
            seen[base, default: 0] += 1
            let count = seen[base]!
            return StudentCopy(name: count == 1 ? base : "\(base) (\(count))", root: root)
        }
    }

    /// Files that decide a score (Package.swift, the suites, the given code, the grader and its
    /// rubric) that differ in the student's copy from the course's, or exist in one only. The
    /// student is graded with the course's files anyway; this is for the instructor to know.
    func modifiedCourseFiles(comparedWith course: KataLayout) -> [String] {
        let folders = ["Tests", "Given", "Grader/Sources", "Grader/Tests"]
        let single = ["Package.swift", "Grader/rubric.json", "Grader/integrity.json"]
        let mine = KataLayout(root: root)
        var paths = Set(single)
        for folder in folders {
            paths.formUnion(IntegrityManifest.files(under: folder, layout: course))
            paths.formUnion(IntegrityManifest.files(under: folder, layout: mine))
        }
        return paths.filter {
            IntegrityManifest.blobID(of: $0, layout: course) != IntegrityManifest.blobID(of: $0, layout: mine)
        }.sorted()
    }
}
