import Foundation
import Testing
import Synchronization
@testable import GraderCore

@Suite("Child processes")
final class ChildProcessTests: Sendable {
    /// A folder of each test's own for its children's logs and markers, removed after the test
    /// (Swift Testing makes an instance per test).
    let directory: URL
    var output: URL { directory.appendingPathComponent("grader-child-\(UUID().uuidString).log") }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("grader-child-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    @Test("A child past its deadline is killed with everything it started")
    func deadlineKillsTheGroup() throws {
        let marker = directory.appendingPathComponent("grader-grandchild-\(UUID().uuidString)")
        let start = Date()
        // The grandchild would create the marker after 2 s if it survived its parent's deadline.
        let termination = try ChildProcess.run(
            ["sh", "-c", "(sleep 2; touch \(marker.path)) & sleep 30"], in: directory, outputFile: output, deadline: 0.3)
        #expect(termination == .timedOut)
        #expect(Date().timeIntervalSince(start) < 5)
        Thread.sleep(forTimeInterval: 2.5)
        #expect(!FileManager.default.fileExists(atPath: marker.path), "a grandchild survived the deadline")
    }

    /// As `swift test` does on macOS: its test helper runs in a process group of its own, and the
    /// exit tests' children with it. (`set -m` gives each background job of bash its own group.)
    @Test("A grandchild in a process group of its own is stopped at the deadline too")
    func grandchildInItsOwnGroupDies() throws {
        let marker = directory.appendingPathComponent("grader-own-group-\(UUID().uuidString)")
        let termination = try ChildProcess.run(
            ["bash", "-c", "set -m; (sleep 2; touch \(marker.path)) & sleep 30"], in: directory, outputFile: output, deadline: 0.5)
        #expect(termination == .timedOut)
        Thread.sleep(forTimeInterval: 2.5)
        #expect(!FileManager.default.fileExists(atPath: marker.path), "a grandchild in its own process group survived the deadline")
    }

    @Test("Exit codes and signals are told apart, and output is captured")
    func exitAndSignal() throws {
        let log = output
        #expect(try ChildProcess.run(["sh", "-c", "echo hello; exit 3"], in: directory, outputFile: log, deadline: 10) == .exited(3))
        #expect(try String(contentsOf: log, encoding: .utf8) == "hello\n")
        #expect(try ChildProcess.run(["sh", "-c", "kill -SEGV $$"], in: directory, outputFile: log, deadline: 10) == .signalled(11))
    }

    @Test("A child starts in its folder (one with a space, a comma and Chinese) and the grader's own folder never changes")
    func startsInItsFolderWithoutMovingTheGrader() throws {
        #expect(SpawnDirectory.addChdir != nil, "this system's C library has posix_spawn_file_actions_addchdir_np")
        let folder = directory.appendingPathComponent("grader child \(UUID().uuidString), 学习")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = FileManager.default.currentDirectoryPath
        let log = output
        // Another thread keeps reading the grader's folder while children start.
        let spawning = Mutex(true)
        let moved = Mutex(false)
        let watcher = Thread {
            while spawning.withLock({ $0 }) {
                if FileManager.default.currentDirectoryPath != before { moved.withLock { $0 = true } }
            }
        }
        watcher.start()
        for _ in 0..<20 {
            #expect(try ChildProcess.run(["sh", "-c", "pwd -P"], in: folder, outputFile: log, deadline: 10) == .exited(0))
        }
        spawning.withLock { $0 = false }
        #expect(!moved.withLock { $0 }, "the grader's working folder changed while a child started")
        let printed = try String(contentsOf: log, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(URL(fileURLWithPath: printed).lastPathComponent == folder.lastPathComponent)
        #expect(FileManager.default.currentDirectoryPath == before)
    }

    @Test("A command that does not exist is an error, not a crash")
    func missingCommand() {
        #expect(throws: GraderError.self) {
            try ChildProcess.run(["no-such-command-for-the-grader"], in: directory, outputFile: output, deadline: 5)
        }
    }
}
