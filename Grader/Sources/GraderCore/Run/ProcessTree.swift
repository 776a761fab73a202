import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The processes below a child of the grader, wherever their process groups are.
///
/// Killing the child's process group is not always enough: on macOS the grader runs the suites
/// through `swift test`, which starts `swiftpm-testing-helper` (swift-package-manager
/// swift-6.3.1-RELEASE, Sources/PackageModel/UserToolchain.swift, `getSwiftTestingHelper`, macOS
/// only) with an `AsyncProcess` whose `startNewProcessGroup` defaults to true
/// (Sources/Basics/Concurrency/AsyncProcess.swift: `POSIX_SPAWN_SETPGROUP` with group 0, the same
/// in swift-6.2-RELEASE; Sources/Commands/SwiftTestCommand.swift, `test(at:)`, leaves the
/// default), and Swift Testing's exit-test children join the helper's group. So every process
/// group below the child is found (with `ps`, POSIX on both platforms) and killed too.
///
/// A look at the process table and the kill that follows are two moments: a group started
/// between them (the helper, spawned while the grader looked) would be missed, and the process
/// adopted by launchd lives on. So the tree is first stopped, group by group, until a look finds
/// every process below the child stopped (a stopped process starts nothing), and only then killed.
enum ProcessTree {
    /// One line of `ps`: a process, its parent, its group, and whether it can still start others.
    struct Entry: Equatable {
        var pid: pid_t
        var parent: pid_t
        var group: pid_t
        /// Stopped (`T`, or `t` for a traced stop on Linux) or dead (`Z`, `X`): it starts nothing.
        var quiet: Bool
    }

    /// Looks at most this many times for processes that escaped the stop before killing anyway.
    static let maximumLooks = 50

    /// The process groups of every process below `pid` (its own included), except the grader's.
    static func groups(below pid: pid_t) -> Set<pid_t> {
        groups(of: processes(below: pid, in: processTable()))
    }

    /// Stops `pid`'s process group and every group below it, until a look at the process table
    /// finds nothing below it still running, then kills every group it stopped.
    static func killAll(below pid: pid_t) {
        var stopped: Set<pid_t> = [pid]
        kill(-pid, SIGSTOP)
        for _ in 0..<maximumLooks {
            let below = processes(below: pid, in: processTable())
            let groups = groups(of: below)
            // A process in the grader's own group is never stopped, so it is not waited for.
            let stoppable = below.filter { groups.contains($0.group) }
            if groups.isSubset(of: stopped) && stoppable.allSatisfy(\.quiet) { break }
            // Every known group again: a process forked into one just before its stop, and not
            // yet stopped, may still be moving to a group of its own.
            stopped.formUnion(groups)
            for group in stopped { kill(-group, SIGSTOP) }
            // A stop is delivered when the process next runs; a short pause lets it land.
            usleep(1_000)
        }
        // SIGKILL ends stopped processes too (POSIX: it cannot be caught, blocked or ignored).
        for group in stopped { kill(-group, SIGKILL) }
    }

    /// The processes below `pid` (its own included), by parent links in `table`.
    static func processes(below pid: pid_t, in table: [Entry]) -> [Entry] {
        var below: Set<pid_t> = [pid]
        var grew = true
        while grew {
            grew = false
            for entry in table where !below.contains(entry.pid) && below.contains(entry.parent) {
                below.insert(entry.pid)
                grew = true
            }
        }
        return table.filter { below.contains($0.pid) }
    }

    /// Their process groups, except the grader's own (and 0 and 1, which are not ours to kill).
    static func groups(of entries: [Entry]) -> Set<pid_t> {
        Set(entries.map(\.group)).subtracting([getpgrp(), 0, 1])
    }

    /// `ps -A -o pid= -o ppid= -o pgid= -o stat=`: every process, its parent, its group and its
    /// state. The state's first letter is `T` for a stopped process and `Z` for a zombie in macOS's
    /// ps (apple-oss-distributions/adv_cmds, adv_cmds-237, ps/ps.1, "state … alias stat") as in
    /// procps on Linux, which adds `t` (stopped by a tracer) and `X` (dead).
    static func processTable() -> [Entry] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/ps")
        process.arguments = ["-A", "-o", "pid=", "-o", "ppid=", "-o", "pgid=", "-o", "stat="]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return [] }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap(entry)
    }

    /// One line of that table, or nil when it is not one.
    static func entry(_ line: Substring) -> Entry? {
        let fields = line.split(separator: " ")
        guard fields.count == 4, let pid = pid_t(fields[0]), let parent = pid_t(fields[1]), let group = pid_t(fields[2]),
              let state = fields[3].first else { return nil }
        return Entry(pid: pid, parent: parent, group: group, quiet: "TtZX".contains(state))
    }
}
