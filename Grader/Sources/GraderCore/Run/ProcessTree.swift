import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The processes below a child of the grader, wherever their process groups are.
///
/// Killing the child's process group is not always enough: on macOS the grader runs the suites
/// through `swift test`, which starts its test helper in a process group of its own
/// (swift-package-manager, `AsyncProcess`, `startNewProcessGroup` defaults to true), and Swift
/// Testing's exit-test children join the helper's group. So before a child is stopped, every
/// process group below it is found (with `ps`, POSIX on both platforms) and killed too.
enum ProcessTree {
    /// The process groups of every process below `pid` (its own included), except the grader's.
    static func groups(below pid: pid_t) -> Set<pid_t> {
        let table = processTable()
        var below: Set<pid_t> = [pid]
        var grew = true
        while grew {
            grew = false
            for entry in table where !below.contains(entry.pid) && below.contains(entry.parent) {
                below.insert(entry.pid)
                grew = true
            }
        }
        let own = getpgrp()
        return Set(table.filter { below.contains($0.pid) }.map(\.group)).subtracting([own, 0, 1])
    }

    /// Kills `pid`'s process group and every group below it.
    static func killAll(below pid: pid_t) {
        for group in groups(below: pid) { kill(-group, SIGKILL) }
        kill(-pid, SIGKILL)
    }

    /// `ps -A -o pid= -o ppid= -o pgid=`: every process, its parent and its group.
    static func processTable() -> [(pid: pid_t, parent: pid_t, group: pid_t)] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/ps")
        process.arguments = ["-A", "-o", "pid=", "-o", "ppid=", "-o", "pgid="]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return [] }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").compactMap { pid_t($0) }
            return fields.count == 3 ? (fields[0], fields[1], fields[2]) : nil
        }
    }
}
