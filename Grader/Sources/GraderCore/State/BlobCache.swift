import Foundation
import Synchronization

/// The git blob ids of files this process has already read, each with the size, file number and
/// modification time the file had then. `grader watch` grades again after every save, and every
/// grade hashes the protected files (the integrity check) and the graded ones (what the
/// systematic checks and the race check remember): in the grader's debug build SHA-1 over the
/// course's files takes about a quarter of a second, for files of which a save changes one.
enum BlobCache {
    private struct Stamp: Equatable {
        var size: Int
        var fileNumber: Int
        var modified: Date
    }

    private static let known = Mutex<[String: (stamp: Stamp, blob: String)]>([:])

    /// The blob id of the file at `url`, hashed again only when its size, file number or
    /// modification time changed; nil when it cannot be read.
    static func blobID(of url: URL) -> String? {
        let path = url.path
        let stamp = self.stamp(of: path)
        if let stamp, let entry = known.withLock({ $0[path] }), entry.stamp == stamp { return entry.blob }
        guard let data = try? Data(contentsOf: url) else { return nil }
        let blob = SHA1.gitBlobID(data)
        // Stamped before reading: a file written while it was read is hashed again next time. A
        // file modified in the last seconds is not remembered at all: the system's file times
        // are coarse (a few milliseconds on Linux), so a second save of the same size within
        // that time could leave the stamp unchanged.
        if let stamp, stamp.modified < Date().addingTimeInterval(-Self.settledSeconds) {
            known.withLock { $0[path] = (stamp, blob) }
        }
        return blob
    }

    /// How long ago a file must have been modified for its stamp to be trusted.
    static let settledSeconds = 2.0

    private static func stamp(of path: String) -> Stamp? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let size = (attributes[.size] as? NSNumber)?.intValue,
              let fileNumber = (attributes[.systemFileNumber] as? NSNumber)?.intValue,
              let modified = attributes[.modificationDate] as? Date
        else { return nil }
        return Stamp(size: size, fileNumber: fileNumber, modified: modified)
    }
}
