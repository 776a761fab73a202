import Foundation
import Testing
@testable import GraderCore

/// Watch mode's decisions: one save is one re-grade, the exercise that changed is the one
/// re-graded, and a compile error does not end the watch.
@Suite("Watch mode")
struct WatchTests {
    static func folder() throws -> URL {
        let root = try TemporaryFolders.make("grader-watch")
        for name in ["Alpha", "Beta"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(name), withIntermediateDirectories: true)
            try Data("let x = 1\n".utf8).write(to: root.appendingPathComponent("\(name)/\(name).swift"))
        }
        return root
    }

    @Test("A save written in several steps triggers one re-grade, of the exercise that changed, once settled")
    func oneSaveOneRegrade() throws {
        let root = try Self.folder()
        var loop = WatchLoop(detector: ChangeDetector(root: root, settleSeconds: 0.3), exercises: ["Alpha", "Beta"], named: nil)
        let start = Date()
        #expect(loop.exerciseToRegrade(now: start) == nil, "nothing changed yet")
        let file = root.appendingPathComponent("Beta/Beta.swift")
        try Data("let x = 2\n".utf8).write(to: file)
        #expect(loop.exerciseToRegrade(now: start.addingTimeInterval(0.1)) == nil, "not settled yet")
        try Data("let x = 22\n".utf8).write(to: file)  // the editor's second write
        #expect(loop.exerciseToRegrade(now: start.addingTimeInterval(0.2)) == nil)
        #expect(loop.exerciseToRegrade(now: start.addingTimeInterval(0.3)) == nil, "0.1 s since the last write")
        #expect(loop.exerciseToRegrade(now: start.addingTimeInterval(0.6)) == "Beta")
        #expect(loop.exerciseToRegrade(now: start.addingTimeInterval(1.0)) == nil, "one save, one re-grade")
        #expect(loop.exerciseToRegrade(now: start.addingTimeInterval(2.0)) == nil)
    }

    @Test("Swift files only: an editor's swap file or a README change does not re-grade")
    func onlySwiftFiles() throws {
        let root = try Self.folder()
        var loop = WatchLoop(detector: ChangeDetector(root: root, settleSeconds: 0), exercises: ["Alpha", "Beta"], named: nil)
        try Data("x".utf8).write(to: root.appendingPathComponent("Alpha/.Alpha.swift.swp"))
        try Data("# notes".utf8).write(to: root.appendingPathComponent("Alpha/README.md"))
        #expect(loop.exerciseToRegrade() == nil)
        #expect(loop.exerciseToRegrade(now: Date().addingTimeInterval(1)) == nil)
    }

    @Test("A named exercise is re-graded whatever file changed; a new file counts as a change")
    func namedExercise() throws {
        let root = try Self.folder()
        var loop = WatchLoop(detector: ChangeDetector(root: root, settleSeconds: 0), exercises: ["Alpha", "Beta"], named: "Alpha")
        try Data("struct Y {}\n".utf8).write(to: root.appendingPathComponent("Beta/Extra.swift"))
        #expect(loop.exerciseToRegrade() == nil)
        #expect(loop.exerciseToRegrade(now: Date().addingTimeInterval(1)) == "Alpha")
    }

    @Test("A compile error does not end the watch: the next save is graded again")
    func compileErrorKeepsWatching() throws {
        let root = try Self.folder()
        var loop = WatchLoop(detector: ChangeDetector(root: root, settleSeconds: 0), exercises: ["Alpha", "Beta"], named: nil)
        var graded: [String] = []
        // What the command does after each re-grade: show the result (here, a compile error) and poll again.
        for (step, text) in ["let x = ", "let x = 3\n"].enumerated() {
            try Data(text.utf8).write(to: root.appendingPathComponent("Alpha/Alpha.swift"))
            _ = loop.exerciseToRegrade(now: Date().addingTimeInterval(Double(step) * 10))
            if let exercise = loop.exerciseToRegrade(now: Date().addingTimeInterval(Double(step) * 10 + 1)) { graded.append(exercise) }
        }
        #expect(graded == ["Alpha", "Alpha"])
    }
}
