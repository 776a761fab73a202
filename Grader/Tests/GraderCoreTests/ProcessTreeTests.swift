import Foundation
import Testing
@testable import GraderCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `swift test` does on macOS, played by `sh`: a process below the grader's child that lives
/// in a process group of its own. Killing the child's group misses it; `ProcessTree` must not.
@Suite("Process tree")
struct ProcessTreeTests {
    @Test("A grandchild in a process group of its own is found and killed")
    func grandchildInItsOwnGroupIsKilled() throws {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The grandchild moves to a process group of its own (Perl's setpgrp, as `swift test`'s
        // helper does with posix_spawn), then becomes `sleep`. Perl is in macOS and in Linux images.
        shell.arguments = ["-c", "perl -e 'setpgrp(0, 0); exec \"sleep\", \"60\"' & echo $!; wait"]
        let output = Pipe()
        shell.standardOutput = output
        try shell.run()
        defer { if shell.isRunning { shell.terminate() } }
        let line = try #require(readLine(from: output.fileHandleForReading))
        let grandchild = try #require(pid_t(line.trimmingCharacters(in: .whitespaces)))
        // Until Perl has run setpgrp, the grandchild is still in the shell's group.
        let moved = Date().addingTimeInterval(5)
        while getpgid(grandchild) != grandchild, Date() < moved { usleep(10_000) }
        #expect(getpgid(grandchild) == grandchild, "the test needs a grandchild in a group of its own")
        #expect(ProcessTree.groups(below: shell.processIdentifier).contains(getpgid(grandchild)))

        ProcessTree.killAll(below: shell.processIdentifier)

        let end = Date().addingTimeInterval(5)
        while isAlive(grandchild), Date() < end { usleep(10_000) }
        #expect(!isAlive(grandchild), "sleep (pid \(grandchild)) survived ProcessTree.killAll")
    }

    /// One line of a pipe, without waiting for its end.
    private func readLine(from handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while true {
            let chunk = handle.readData(ofLength: 1)
            guard let byte = chunk.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    /// Running, and not a zombie waiting for its parent (`ps` shows a zombie's state as Z).
    private func isAlive(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        let ps = Process()
        ps.executableURL = URL(fileURLWithPath: "/bin/ps")
        ps.arguments = ["-o", "stat=", "-p", String(pid)]
        let pipe = Pipe()
        ps.standardOutput = pipe
        guard (try? ps.run()) != nil else { return true }
        let state = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ps.waitUntilExit()
        return !state.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("Z")
    }
}
