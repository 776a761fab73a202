import Foundation

/// Notices saved changes to the learner's Swift files by polling modification times (no
/// package, no platform file-event API), and reports a change only once it has settled: an
/// editor that writes a file in several steps, or a save of several files, is one change.
public struct ChangeDetector {
    public var root: URL
    /// How long files must stay unchanged before a change is reported.
    public var settleSeconds: Double

    private var known: [String: FileStamp]
    private var pending: (changed: Set<String>, since: Date)?

    struct FileStamp: Equatable {
        var modified: Date
        var size: Int
    }

    public init(root: URL, settleSeconds: Double = 0.2) {
        self.root = root
        self.settleSeconds = settleSeconds
        self.known = Self.scan(root)
    }

    /// Call every few hundred milliseconds: the files that changed (relative paths), once the
    /// change has settled; empty otherwise.
    public mutating func poll(now: Date = Date()) -> Set<String> {
        let current = Self.scan(root)
        let changed = Set(current.keys).union(known.keys).filter { current[$0] != known[$0] }
        known = current
        if !changed.isEmpty {
            pending = ((pending?.changed ?? []).union(changed), now)
            return []
        }
        guard let waiting = pending, now.timeIntervalSince(waiting.since) >= settleSeconds else { return [] }
        pending = nil
        return waiting.changed
    }

    /// Swift files below `root`, by path relative to it; hidden files and folders are skipped
    /// (editors' swap files, saved copies such as `Name.saved-…` are folders of their own).
    static func scan(_ root: URL) -> [String: FileStamp] {
        var stamps: [String: FileStamp] = [:]
        _ = FileTree.relativePaths(under: root) { relative, url in
            guard relative.hasSuffix(".swift"),
                  let values = try? url.resourceValues(forKeys: [.contentModificationDateKey, .fileSizeKey, .isRegularFileKey]),
                  values.isRegularFile == true else { return false }
            stamps[relative] = FileStamp(modified: values.contentModificationDate ?? .distantPast, size: values.fileSize ?? 0)
            return true
        }
        return stamps
    }

    /// The exercise a changed path belongs to: its first folder (`ThreadSafeDictionary/…`).
    public static func exercise(of path: String, among names: [String]) -> String? {
        let first = String(path.split(separator: "/").first ?? "")
        return names.first { $0 == first }
    }
}
