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
        let product = root.appendingPathComponent(".build/debug/ConcurrencyKataPackageTests.xctest")
        let stamp = BuildStamp(layout: layout, mode: BuildMode(), excluded: [], products: [product])
        #expect(!stamp.isCurrent(), "no test binary yet")
        try FileManager.default.createDirectory(at: product.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("binary".utf8).write(to: product)
        #expect(!stamp.isCurrent(), "never recorded")
        stamp.record()
        #expect(stamp.isCurrent())
        #expect(!BuildStamp(layout: layout, mode: BuildMode(), excluded: ["B"], products: [product]).isCurrent(), "another KATA_EXCLUDE is another build")
        #expect(!BuildStamp(layout: layout, mode: BuildMode(buildSystem: .swiftbuild), excluded: [], products: [product]).isCurrent(),
                "the other build system keeps its own stamp")
        try Data("let a = 22\n".utf8).write(to: source)
        #expect(!stamp.isCurrent(), "a source changed")
        stamp.record()
        try Data("// manifest, changed\n".utf8).write(to: root.appendingPathComponent("Package.swift"))
        #expect(!stamp.isCurrent(), "the manifest changed")
        stamp.record()
        try FileManager.default.removeItem(at: product)
        #expect(!stamp.isCurrent(), "the binary is gone")
    }

    @Test("With a test product per target (Swift Build), every selected suite's runner must be there")
    func stampsPerTarget() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kata-stamp-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let layout = KataLayout(root: root)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data("// manifest\n".utf8).write(to: root.appendingPathComponent("Package.swift"))
        let mode = BuildMode(buildSystem: .swiftbuild)
        let products = TestProducts(mode: mode, binPath: root.appendingPathComponent(".build/out/Products/Debug-linux"))
        let binaries = products.binaries(of: ["ATests", "BTests"])
        #expect(binaries.count == 2)
        try FileManager.default.createDirectory(at: products.binPath, withIntermediateDirectories: true)
        for binary in binaries {
            try FileManager.default.createDirectory(at: binary.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("runner".utf8).write(to: binary)
        }
        let stamp = BuildStamp(layout: layout, mode: mode, excluded: [], products: binaries)
        stamp.record()
        #expect(stamp.isCurrent())
        try FileManager.default.removeItem(at: binaries[1])
        #expect(!stamp.isCurrent(), "one suite's runner is gone")
    }
}
