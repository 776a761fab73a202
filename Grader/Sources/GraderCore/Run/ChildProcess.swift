import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a child process ended.
public enum Termination: Equatable, Sendable, Codable {
    case exited(Int32)
    case signalled(Int32)
    /// Still running at the deadline; it and its whole process group were killed.
    case timedOut
    /// The grader was interrupted (Ctrl-C); the child's process group was killed.
    case interrupted
}

/// Runs a command in a process group of its own, with its output in a file and a deadline.
///
/// The process group matters: a test binary starts children of its own (exit tests), and a
/// deadline or a Ctrl-C must leave none of them behind.
public enum ChildProcess {
    /// The process group being waited for, so that the SIGINT handler can kill it.
    nonisolated(unsafe) static var currentGroup: pid_t = 0

    /// Runs `arguments[0]` (looked up in PATH) with the rest as its arguments, in `directory`,
    /// with standard output and error both written to `outputFile`. Returns how it ended.
    public static func run(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:],
        outputFile: URL, deadline seconds: Double
    ) throws -> Termination {
        #if canImport(Darwin)
        var fileActions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        #else
        var fileActions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&fileActions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&fileActions)
            posix_spawnattr_destroy(&attributes)
        }
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        posix_spawn_file_actions_addopen(&fileActions, 1, outputFile.path, O_WRONLY | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&fileActions, 1, 2)
        posix_spawn_file_actions_addopen(&fileActions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)

        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let envStrings = env.map { "\($0.key)=\($0.value)" }

        let previousDirectory = FileManager.default.currentDirectoryPath
        _ = FileManager.default.changeCurrentDirectoryPath(directory.path)
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previousDirectory) }

        var pid: pid_t = 0
        let status = withCStrings(arguments) { argv in
            withCStrings(envStrings) { envp in
                posix_spawnp(&pid, arguments[0], &fileActions, &attributes, argv, envp)
            }
        }
        guard status == 0 else {
            throw GraderError.cannotRun("could not start \(arguments[0]): \(String(cString: strerror(status)))")
        }
        currentGroup = pid
        defer { currentGroup = 0 }

        let end = Date(timeIntervalSinceNow: seconds)
        var waitStatus: Int32 = 0
        while true {
            let result = waitpid(pid, &waitStatus, WNOHANG)
            if result == pid {
                // Killed by the Ctrl-C handler: say so rather than report a crash.
                if Interrupt.requested { killGroup(pid); return .interrupted }
                break
            }
            if result < 0 && errno != EINTR { return .exited(-1) }
            if Interrupt.requested {
                killGroup(pid)
                return .interrupted
            }
            if Date() >= end {
                killGroup(pid)
                return .timedOut
            }
            usleep(10_000)
        }
        // The test binary has returned; make sure nothing it started lingers.
        kill(-pid, SIGKILL)
        let signal = waitStatus & 0x7f
        if signal == 0 { return .exited((waitStatus >> 8) & 0xff) }
        return .signalled(signal)
    }

    static func killGroup(_ pid: pid_t) {
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }

    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }
}

/// Ctrl-C: kill the child's process group, then let the grader report and exit.
public enum Interrupt {
    nonisolated(unsafe) static var requested = false
    nonisolated(unsafe) private static var source: DispatchSourceSignal?

    public static func install() {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            requested = true
            let group = ChildProcess.currentGroup
            if group > 0 { kill(-group, SIGKILL) }
        }
        source.resume()
        self.source = source
    }
}

public enum GraderError: Error, CustomStringConvertible {
    case cannotRun(String)
    case badArguments(String)
    case badRubric(String)

    public var description: String {
        switch self {
        case .cannotRun(let text), .badArguments(let text), .badRubric(let text): text
        }
    }
}
