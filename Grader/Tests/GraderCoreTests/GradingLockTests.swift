import Foundation
import Testing
@testable import GraderCore

/// One grading per clone, tested with real grader processes: while one grades, a second one
/// with `--no-wait` refuses with exit 2 naming the first one's pid, and a third waits, says so,
/// and runs after it.
@Suite("One grader at a time")
struct GradingLockTests {
    /// A checkout whose `swift build` (a fake on PATH) takes two seconds and fails: long enough
    /// to hold the lock, with nothing real to build.
    static func slowCheckout() throws -> (root: URL, path: String) {
        let root = try TemporaryFolders.make("grader-lock")
        let bin = root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Grader"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try Data("// fake\n".utf8).write(to: root.appendingPathComponent("Package.swift"))
        try JSONEncoder().encode(Rubric(exercises: [FakeTestBinary.exercise])).write(to: root.appendingPathComponent("Grader/rubric.json"))
        let swift = bin.appendingPathComponent("swift")
        // It answers SwiftPM's questions at once (the grader asks before building), then builds slowly.
        let script = """
            #!/bin/sh
            case "$*" in
              *--version*) echo "fake Swift version 0"; exit 0 ;;
              *--show-bin-path*) echo "$PWD/.build/debug"; exit 0 ;;
              *--help*) echo "  --build-system <build-system>  (default: native)"; exit 0 ;;
            esac
            sleep 2
            echo 'error: fake build failure'
            exit 1

            """
        try Data(script.utf8).write(to: swift)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift.path)
        return (root, bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"))
    }

    struct GraderNotFound: Error, CustomStringConvertible {
        var description: String { "the grader executable was not found in the build folder in use" }
    }

    /// The grader executable of the build folder in use: built next to this test binary (on
    /// Linux, with either build system, both are in SwiftPM's bin folder; on macOS the test code
    /// is a bundle, `<bin>/<product>.xctest`, run by a helper), or in a build folder of this
    /// checkout, where either build system puts it.
    static var graderExecutable: URL? {
        final class InThisBundle {}
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardizedFileURL
        var candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("grader"),
            Bundle(for: InThisBundle.self).bundleURL.deletingLastPathComponent().appendingPathComponent("grader"),
        ]
        for scratch in [".build-solutions", ".build"] {
            for bin in ["debug", "out/Products/Debug-linux", "out/Products/Debug"] {
                candidates.append(checkout.appendingPathComponent("\(scratch)/\(bin)/grader"))
            }
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static func start(_ arguments: [String], in root: URL, path: String) throws -> (Process, Pipe) {
        let process = Process()
        guard let executable = graderExecutable else { throw GraderNotFound() }
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = root
        process.environment = ProcessInfo.processInfo.environment.merging(["PATH": path, "NO_COLOR": "1"]) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        return (process, pipe)
    }

    @Test("While a grader runs, a second refuses with --no-wait and a third waits for it")
    func secondGraderWaitsOrRefuses() throws {
        let (root, path) = try Self.slowCheckout()
        let (first, firstOutput) = try Self.start(["--no-race-check"], in: root, path: path)
        // Decide by the event, not a moment: the first grader holds the lock once its pid is in the file.
        let lockFile = root.appendingPathComponent(".kata/grader.lock")
        let deadline = Date(timeIntervalSinceNow: 20)
        while (try? String(contentsOf: lockFile, encoding: .utf8)) != "pid \(first.processIdentifier)\n" && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        let (refusing, refusingOutput) = try Self.start(["--no-wait"], in: root, path: path)
        let (waiting, waitingOutput) = try Self.start(["--no-race-check"], in: root, path: path)
        refusing.waitUntilExit()
        let refused = String(decoding: refusingOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(refusing.terminationStatus == 2)
        #expect(refused.contains("Another grader (pid \(first.processIdentifier)) is grading this clone"), "got: \(refused)")
        #expect(first.isRunning, "the first grader should still hold the lock while the second refuses")

        first.waitUntilExit()
        let firstEnded = Date()
        waiting.waitUntilExit()
        let waited = String(decoding: waitingOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(waited.contains("waiting for it to finish"), "got: \(waited)")
        #expect(Date().timeIntervalSince(firstEnded) > 1.5, "the waiting grader should build only after the first one finished")
        _ = firstOutput.fileHandleForReading.readDataToEndOfFile()
        #expect(first.terminationStatus == 2, "the fake build fails, which is exit 2")
        #expect(waiting.terminationStatus == 2)
    }
}
