import Foundation
import Testing
@testable import GraderCore

/// The grader skips `swift build` only when nothing it reads has changed since the last
/// successful build, and the test binary that build left is still there.
@Suite("Build stamps")
struct BuildStampTests {
    @Test("Current after a recorded build; not after a source, the manifest, the environment or the binary changes")
    func stamps() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kata-stamp-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let layout = KataLayout(root: root)
        let source = root.appendingPathComponent("Exercises/A/A.swift")
        try FileManager.default.createDirectory(at: source.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("let a = 1\n".utf8).write(to: source)
        try Data("// manifest\n".utf8).write(to: root.appendingPathComponent("Package.swift"))
        let stamp = BuildStamp(layout: layout, mode: BuildMode(), excluded: [])
        #expect(!stamp.isCurrent(), "no test binary yet")
        try FileManager.default.createDirectory(at: stamp.product.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("binary".utf8).write(to: stamp.product)
        #expect(!stamp.isCurrent(), "never recorded")
        stamp.record()
        #expect(stamp.isCurrent())
        #expect(!BuildStamp(layout: layout, mode: BuildMode(), excluded: ["B"]).isCurrent(), "another KATA_EXCLUDE is another build")
        try Data("let a = 22\n".utf8).write(to: source)
        #expect(!stamp.isCurrent(), "a source changed")
        stamp.record()
        try Data("// manifest, changed\n".utf8).write(to: root.appendingPathComponent("Package.swift"))
        #expect(!stamp.isCurrent(), "the manifest changed")
        stamp.record()
        try FileManager.default.removeItem(at: stamp.product)
        #expect(!stamp.isCurrent(), "the binary is gone")
    }
}
