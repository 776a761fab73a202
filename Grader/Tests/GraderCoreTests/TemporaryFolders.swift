import Foundation
import Synchronization

/// Folders the grader's tests make in the temporary directory, removed when the test process
/// exits (a test may hand its folder to code that outlives its own scope: a session, a layout).
enum TemporaryFolders {
    private static let made = Mutex<[URL]>([])
    private static let removedAtExit: Void = { atexit { TemporaryFolders.removeAll() } }()

    /// A new, empty folder named `<prefix>-<UUID>`.
    static func make(_ prefix: String) throws -> URL {
        _ = removedAtExit
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        made.withLock { $0.append(url) }
        return url
    }

    static func removeAll() {
        for url in made.withLock({ $0 }) { try? FileManager.default.removeItem(at: url) }
    }
}
