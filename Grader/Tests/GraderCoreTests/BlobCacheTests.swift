import Foundation
@testable import GraderCore
import Testing

/// `grader watch` hashes again only the files a save changed: a change of content must always
/// give a new blob id, also when the size stays the same.
struct BlobCacheTests {
    @Test("A file saved again with other content of the same size gets its new blob id")
    func changedContentIsHashedAgain() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blob-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Dictionary.swift")
        try Data("let a = 1\n".utf8).write(to: file)
        // Saved a minute ago: settled, so its stamp is remembered.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-60)], ofItemAtPath: file.path)
        let first = BlobCache.blobID(of: file)
        #expect(first == SHA1.gitBlobID(Data("let a = 1\n".utf8)))
        #expect(BlobCache.blobID(of: file) == first, "an unchanged file keeps its id")
        // Written in place, as an editor may: same file number and size, a later modification time.
        let handle = try FileHandle(forWritingTo: file)
        try handle.write(contentsOf: Data("let b = 2\n".utf8))
        try handle.close()
        #expect(BlobCache.blobID(of: file) == SHA1.gitBlobID(Data("let b = 2\n".utf8)))
        // Saved again at once, with the same size: a file this recent is never taken from memory.
        let again = try FileHandle(forWritingTo: file)
        try again.write(contentsOf: Data("let c = 3\n".utf8))
        try again.close()
        #expect(BlobCache.blobID(of: file) == SHA1.gitBlobID(Data("let c = 3\n".utf8)))
        try FileManager.default.removeItem(at: file)
        #expect(BlobCache.blobID(of: file) == nil, "a file gone has no id")
    }
}
