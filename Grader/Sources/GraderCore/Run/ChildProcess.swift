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
    /// It exited (with this status) before the test run ended: code under test called exit().
    /// The suite runner tells this from `.exited` by the event stream.
    case exitedEarly(Int32)
    /// It printed more than the output limit; it and its whole process group were killed.
    case outputLimitExceeded
    /// The watcher asked to stop it after its work was done (a test run that ended but whose
    /// process did not exit); not a failure.
    case stoppedAfterWork
}

/// Limits on one child process.
public struct ChildLimits: Sendable {
    /// Wall-clock seconds before the process group is killed.
    public var deadline: Double
    /// Output bytes kept in the log: this many from the start and this many from the end.
    public var keptOutput: Int = 1 << 20
    /// Output bytes after which the process group is killed.
    public var outputLimit: Int = 64 << 20

    public init(deadline: Double, keptOutput: Int = 1 << 20, outputLimit: Int = 64 << 20) {
        self.deadline = deadline
        self.keptOutput = keptOutput
        self.outputLimit = outputLimit
    }
}

/// Runs a command in a process group of its own, with its output bounded and kept in a file,
/// and a deadline.
///
/// The process group matters: a test binary starts children of its own (exit tests), and a
/// deadline or a Ctrl-C must leave none of them behind (`ProcessTree` finds those that live in
/// groups of their own).
public enum ChildProcess {
    /// The process groups being waited for, so that the SIGINT handler can kill them.
    static let runningGroups = LockedSet()

    /// Runs `arguments[0]` (looked up in PATH) with the rest as its arguments, in `directory`,
    /// with standard output and error both captured (bounded) into `outputFile`. `watch` is
    /// called about every 50 ms while the child runs; returning true stops the child as
    /// `.stoppedAfterWork`. `lines`, when given, also gets each line with the moment it was read
    /// (the loop benchmark's phases). Returns how it ended.
    public static func run(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:],
        outputFile: URL, limits: ChildLimits, lines: TimedLines? = nil, watch: (() -> Bool)? = nil
    ) throws -> Termination {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw GraderError.cannotRun("could not create a pipe: \(String(cString: strerror(errno)))") }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        let pid: pid_t
        do {
            pid = try spawn(arguments, in: directory, environment: environment, output: writeEnd)
        } catch {
            close(readEnd)
            close(writeEnd)
            throw error
        }
        close(writeEnd)
        runningGroups.insert(pid)
        defer { runningGroups.remove(pid) }

        let capture = OutputCapture(keep: limits.keptOutput)
        let drained = DispatchSemaphore(value: 0)
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let count = read(readEnd, &buffer, buffer.count)
                if count > 0 {
                    let chunk = Data(buffer[0..<count])
                    capture.append(chunk)
                    lines?.append(chunk)
                    continue
                }
                if count < 0 && errno == EINTR { continue }
                break
            }
            drained.signal()
        }
        reader.start()

        let termination = waitForExit(pid, limits: limits, capture: capture, watch: watch)
        // Whatever the test binary started must not linger, and the pipe closes with it.
        kill(-pid, SIGKILL)
        if drained.wait(timeout: .now() + 2) == .timedOut {
            // A process outside the group still holds the pipe: stop reading.
        }
        close(readEnd)
        try capture.text.write(to: outputFile)
        return termination
    }

    /// The same, with the default output limits.
    public static func run(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:],
        outputFile: URL, deadline: Double
    ) throws -> Termination {
        try run(arguments, in: directory, environment: environment, outputFile: outputFile, limits: ChildLimits(deadline: deadline))
    }

    private static func waitForExit(_ pid: pid_t, limits: ChildLimits, capture: OutputCapture, watch: (() -> Bool)?) -> Termination {
        let end = Date(timeIntervalSinceNow: limits.deadline)
        var waitStatus: Int32 = 0
        var ticks = 0
        while true {
            let result = waitpid(pid, &waitStatus, WNOHANG)
            if result == pid {
                // Killed by the Ctrl-C handler: say so rather than report a crash.
                if Interrupt.requested { return .interrupted }
                let signal = waitStatus & 0x7f
                return signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .signalled(signal)
            }
            if result < 0 && errno != EINTR { return .exited(-1) }
            if Interrupt.requested { killGroup(pid); return .interrupted }
            if capture.bytesSeen > limits.outputLimit { killGroup(pid); return .outputLimitExceeded }
            if Date() >= end { killGroup(pid); return .timedOut }
            ticks += 1
            if ticks % 5 == 0, let watch, watch() { killGroup(pid); return .stoppedAfterWork }
            usleep(10_000)
        }
    }

    private static func spawn(_ arguments: [String], in directory: URL, environment: [String: String], output: Int32) throws -> pid_t {
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
        posix_spawn_file_actions_adddup2(&fileActions, output, 1)
        posix_spawn_file_actions_adddup2(&fileActions, output, 2)
        posix_spawn_file_actions_addopen(&fileActions, 0, "/dev/null", O_RDONLY, 0)
        // The grader ignores SIGINT, SIGTERM and SIGHUP (`Interrupt` handles them), and an ignored
        // signal stays ignored across exec: a child gets their default actions back.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)

        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let envStrings = env.map { "\($0.key)=\($0.value)" }

        var pid: pid_t = 0
        func spawnNow() -> Int32 {
            withCStrings(arguments) { argv in
                withCStrings(envStrings) { envp in
                    posix_spawnp(&pid, arguments[0], &fileActions, &attributes, argv, envp)
                }
            }
        }
        // An executable this process has just written can be busy for a moment (ETXTBSY): a
        // child that another thread is spawning holds a copy of the write descriptor until it
        // execs. The grader's own tests write fake runners and spawn them side by side; waiting a
        // little and trying again is the usual cure.
        func spawnRetryingBusy() -> Int32 {
            var status = spawnNow()
            for attempt in 1...20 where status == ETXTBSY {
                usleep(UInt32(5_000 * attempt))
                status = spawnNow()
            }
            return status
        }
        let status: Int32
        if SpawnDirectory.add(directory.path, to: &fileActions) {
            status = spawnRetryingBusy()
        } else {
            // No such file action on this system: spawn from the directory, one spawn at a time.
            SpawnDirectory.fallbackLock.lock()
            let previousDirectory = FileManager.default.currentDirectoryPath
            _ = FileManager.default.changeCurrentDirectoryPath(directory.path)
            status = spawnRetryingBusy()
            _ = FileManager.default.changeCurrentDirectoryPath(previousDirectory)
            SpawnDirectory.fallbackLock.unlock()
        }
        guard status == 0 else {
            throw GraderError.cannotRun("could not start \(arguments[0]): \(String(cString: strerror(status)))")
        }
        return pid
    }

    /// Stops `pid`, its process group and every process group below it (see `ProcessTree`).
    static func killGroup(_ pid: pid_t) {
        ProcessTree.killAll(below: pid)
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

/// A set of process ids behind a lock.
final class LockedSet: @unchecked Sendable {
    private let lock = NSLock()
    private var members = Set<pid_t>()
    func insert(_ pid: pid_t) { lock.lock(); members.insert(pid); lock.unlock() }
    func remove(_ pid: pid_t) { lock.lock(); members.remove(pid); lock.unlock() }
    var all: Set<pid_t> { lock.lock(); defer { lock.unlock() }; return members }
}

/// Ctrl-C (and a terminal closed, or a `kill`): kill the children's process groups, then let the
/// grader report and exit. The children run in process groups of their own, so a signal sent to
/// the grader's group alone would leave them running.
public enum Interrupt {
    nonisolated(unsafe) static var requested = false
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    public static func install() {
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                requested = true
                for group in ChildProcess.runningGroups.all { ProcessTree.killAll(below: group) }
            }
            source.resume()
            sources.append(source)
        }
    }
}

public enum GraderError: Error, CustomStringConvertible {
    case cannotRun(String)
    case badArguments(String)
    case badRubric(String)
    /// Another grader holds this clone's lock.
    case busy(String)

    public var description: String {
        switch self {
        case .cannotRun(let text), .badArguments(let text), .badRubric(let text), .busy(let text): text
        }
    }
}
