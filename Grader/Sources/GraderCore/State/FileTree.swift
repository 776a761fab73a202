import Foundation

/// The files below a folder, named relative to it.
enum FileTree {
    /// Paths below `folder`, relative to it, of the entries for which `keep` is true; hidden
    /// files and folders (and everything in them) are skipped.
    ///
    /// The path enumerator names each entry relative to `folder` itself. A URL enumerator does not
    /// always: on macOS it may hand back `/private/var/…` for a folder under `/var` (a symbolic
    /// link), and cutting the folder's path off the front of those would fail.
    static func relativePaths(under folder: URL, where keep: (_ relative: String, _ url: URL) -> Bool) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var paths: [String] = []
        while let relative = enumerator.nextObject() as? String {
            guard !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { continue }
            if keep(relative, folder.appendingPathComponent(relative)) { paths.append(relative) }
        }
        return paths
    }

    /// Whether `url` is a regular file (a symbolic link is not).
    static func isRegularFile(_ url: URL) -> Bool {
        (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true
    }
}
