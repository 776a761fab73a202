import Foundation

/// Makes one folder hold the same files as another, writing only the files whose bytes differ.
///
/// A clean copy of the course is graded again and again (one student after another): files
/// rewritten with the same bytes would still look new to the build system (their modification
/// times and inodes change) and rebuild everything, so unchanged files are left alone and the
/// build folders beside them stay warm.
enum FolderMirror {
    /// Copies the regular files below `source` to `destination` and removes from `destination`
    /// what `source` does not have. Hidden entries and symbolic links in `source` are not copied
    /// (a link could point into the course's own tests); `keep` names entries at the top of
    /// `destination` that stay as they are (build folders, a folder filled separately).
    static func sync(_ source: URL, to destination: URL, keep: (String) -> Bool = { _ in false }) throws {
        let fm = FileManager.default
        try fm.createDirectory(at: destination, withIntermediateDirectories: true)
        var wanted: Set<String> = []
        for name in try fm.contentsOfDirectory(atPath: source.path) where !name.hasPrefix(".") {
            let from = source.appendingPathComponent(name)
            let to = destination.appendingPathComponent(name)
            let values = try from.resourceValues(forKeys: [.isSymbolicLinkKey, .isDirectoryKey, .isRegularFileKey])
            if values.isSymbolicLink == true { continue }
            if values.isDirectory == true {
                wanted.insert(name)
                if isFile(to) { try fm.removeItem(at: to) }
                try sync(from, to: to)
            } else if values.isRegularFile == true {
                wanted.insert(name)
                let data = try Data(contentsOf: from)
                if isDirectory(to) { try fm.removeItem(at: to) }
                if (try? Data(contentsOf: to)) != data { try data.write(to: to) }
            }
        }
        for name in try fm.contentsOfDirectory(atPath: destination.path) where !wanted.contains(name) && !keep(name) {
            try fm.removeItem(at: destination.appendingPathComponent(name))
        }
    }

    static func isDirectory(_ url: URL) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &directory) && directory.boolValue
    }

    static func isFile(_ url: URL) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &directory) && !directory.boolValue
    }
}
