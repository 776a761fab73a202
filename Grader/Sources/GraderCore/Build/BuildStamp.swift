import Foundation

/// Remembers, per build folder, what the last successful build was made from: every source
/// file's path, size and modification time, the environment Package.swift reads, and the test
/// binaries it left. When nothing of it has changed, `swift build` would have nothing to do but
/// still takes a second or two to find that out: the grader skips it.
struct BuildStamp {
    var layout: KataLayout
    var mode: BuildMode
    var excluded: [String]

    /// What a build reads: the manifest and every folder with sources.
    static let inputs = ["Package.swift", "Exercises", "Solutions", "Given", "Tests", "Grader/Sources", "Grader/Variants", "Benchmarks"]

    var file: URL { layout.stateDirectory.appendingPathComponent("build-stamps.json") }

    /// The test binaries the build leaves (`TestProducts`): one, or one per test target.
    var products: [URL]

    func fingerprint() -> String? {
        var text = "build stamp 2\n\(mode.environment(excluding: excluded).sorted { $0.key < $1.key })\n\(mode.buildSystem.rawValue)\n"
        guard !products.isEmpty else { return nil }
        for product in products {
            guard let stamp = Self.stamp(of: product) else { return nil }
            text += "product \(product.lastPathComponent) \(stamp)\n"
        }
        for input in Self.inputs {
            let url = layout.root.appendingPathComponent(input)
            if input.hasSuffix(".swift") {
                text += "\(input) \(Self.stamp(of: url) ?? "-")\n"
                continue
            }
            for path in FileTree.relativePaths(under: url, where: { _, _ in true }).sorted() {
                text += "\(input)/\(path) \(Self.stamp(of: url.appendingPathComponent(path)) ?? "-")\n"
            }
        }
        return SHA1.gitBlobID(Data(text.utf8))
    }

    /// Size and modification time, to the nanosecond where the file system keeps it.
    static func stamp(of url: URL) -> String? {
        guard let values = try? url.resourceValues(forKeys: [.contentModificationDateKey, .fileSizeKey]) else { return nil }
        return "\(values.fileSize ?? -1) \(values.contentModificationDate?.timeIntervalSince1970 ?? 0)"
    }

    private func stored() -> [String: String] {
        (try? JSONDecoder().decode([String: String].self, from: Data(contentsOf: file))) ?? [:]
    }

    /// Both build systems may share a build folder: each has its own stamp.
    var key: String { mode.buildSystem == .native ? mode.scratchPath : "\(mode.scratchPath) \(mode.buildSystem.rawValue)" }

    /// True when the last successful build of this folder was made from exactly what is there now.
    func isCurrent() -> Bool {
        guard let fingerprint = fingerprint() else { return false }
        return stored()[key] == fingerprint
    }

    /// Builds of different folders may end at once (verify's rounds): one writer at a time.
    private static let writing = NSLock()

    /// Called after a successful build.
    func record() {
        Self.writing.lock()
        defer { Self.writing.unlock() }
        var stamps = stored()
        stamps[key] = fingerprint()
        try? FileManager.default.createDirectory(at: layout.stateDirectory, withIntermediateDirectories: true)
        try? JSONEncoder().encode(stamps).write(to: file, options: .atomic)
    }
}
