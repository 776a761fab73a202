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

    /// A look at the process table, then a kill of the groups it saw, loses a process group that
    /// starts in between (on macOS, `swift test`'s helper); the tree must be stopped first.
    /// Measured with a look-then-kill in place of `killAll`: 17 to 68 children of 22 to 77
    /// survived, in 10 runs of 10 (load 30 to 48 on 2 cores).
    @Test("A process that keeps starting new process groups loses none of them to the kill")
    func groupsStartedDuringTheKillAreKilled() throws {
        // Every process of this test has the marker in its command line (the script's text), so
        // that survivors are found by it and not by pids, which another process may reuse.
        let marker = "kata-tree-\(UUID().uuidString)"
        let forker = Process()
        forker.executableURL = URL(fileURLWithPath: "/bin/sh")
        // In a group of its own (as the grader's child is), it starts a child every 2 ms, each of
        // which moves to a new group and sleeps; it prints each child's pid.
        let perl = #"my $m = "\#(marker)"; setpgrp(0, 0); $| = 1; for (1..200) { my $p = fork(); if (defined $p && $p == 0) { close STDOUT; setpgrp(0, 0); sleep 30; exit 0 } print "$p\n"; select(undef, undef, undef, 0.002) } sleep 10"#
        forker.arguments = ["-c", "exec perl -e '\(perl)'"]
        let output = Pipe()
        forker.standardOutput = output
        try forker.run()
        defer {
            if forker.isRunning { forker.terminate() }
            for survivor in processes(marked: marker) { kill(survivor.pid, SIGKILL) }
        }
        let handle = output.fileHandleForReading
        var started = 0
        while started < 5, let line = readLine(from: handle), pid_t(line) != nil { started += 1 }
        #expect(started == 5, "the test needs a process that starts children")
        #expect(getpgid(forker.processIdentifier) == forker.processIdentifier, "the test needs the forker in a group of its own")

        ProcessTree.killAll(below: forker.processIdentifier)

        // Every child it started: the pipe ends when the forker is gone (its children closed it).
        while let line = readLine(from: handle), pid_t(line) != nil { started += 1 }
        let end = Date().addingTimeInterval(5)
        while !processes(marked: marker).isEmpty, Date() < end { usleep(10_000) }
        let survivors = processes(marked: marker)
        #expect(survivors.isEmpty, "\(survivors.count) of \(started) children survived ProcessTree.killAll: \(survivors.map(\.line))")
    }

    /// The processes, zombies aside, whose command line contains `marker`.
    private func processes(marked marker: String) -> [(pid: pid_t, line: String)] {
        let ps = Process()
        ps.executableURL = URL(fileURLWithPath: "/bin/ps")
        ps.arguments = ["-A", "-o", "pid=", "-o", "stat=", "-o", "args="]
        let pipe = Pipe()
        ps.standardOutput = pipe
        guard (try? ps.run()) != nil else { return [] }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ps.waitUntilExit()
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 2)
            guard fields.count == 3, let pid = pid_t(fields[0]), !fields[1].hasPrefix("Z"), fields[2].contains(marker) else { return nil }
            return (pid, String(line))
        }
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
