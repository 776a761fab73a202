import Foundation
import Testing

/// Runs a check in a child process (an exit test), so that a crash or a hang in the code under
/// test becomes a failed check with a message, and proves that the check's body ran to its end.
///
/// Write every isolated check like this:
/// ```swift
/// let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
///     IsolatedCheck.begin(in: "mixed operations from 6 threads")
///     … the check …
///     IsolatedCheck.finish()
/// }
/// IsolatedCheck.explain(ending, in: "mixed operations from 6 threads", crashHint: "…")
/// ```
/// Why `.failure`: a body that finishes ends its process with `finishedCode`, not with 0.
/// `.failure` matches every ending but status 0, so Swift Testing hands back the ending of every
/// child (a signal, the watchdog, an early `exit(3)`) and `explain` turns it into words; the only
/// ending it does not hand back is status 0, which can only come from an early `exit(0)`, and the
/// expectation's own comment (`exitedEarly`) says so. Without this, `exit(0)` anywhere in the
/// code under test would look like a check that passed.
public enum IsolatedCheck {
    /// The exit code of a child whose body ran to its end.
    public static let finishedCode: CInt = 73

    /// The comment of the `#expect`: it is shown only when the child exited with status 0.
    public static let exitedEarly: Comment = """
        The process exited with status 0 before the check finished: something in your code called exit(). \
        A check passes only when it runs to its end.
        """

    /// The first line of an isolated body: starts the watchdog that ends a stuck child.
    public static func begin(seconds: Double = Watchdog.defaultSeconds, in place: String) {
        Watchdog.start(seconds: seconds, in: place)
    }

    /// The same for a body whose work moves `progress()`: the watchdog ends the child only after
    /// `quiet` seconds without a change, or after `limit` in all.
    public static func begin(quiet: Double, limit: Double, in place: String, progress: @escaping @Sendable () -> Int) {
        Watchdog.start(quiet: quiet, limit: limit, in: place, progress: progress)
    }

    /// The last line of an isolated body: the proof that it ran to its end.
    public static func finish() -> Never {
        _exit(finishedCode)
    }

    /// Turns how the child ended into a failed check with a teaching message, unless it finished.
    /// Returns true when the body ran to its end (its own expectations may still have failed:
    /// those reach the parent as issues of their own).
    @discardableResult
    public static func explain(
        _ ending: ExitTest.Result?, in place: String, crashHint: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        // nil: the child exited with status 0, and the expectation has already said so.
        guard let ending else { return false }
        guard let message = message(for: ending.exitStatus, in: place, crashHint: crashHint) else { return true }
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        return false
    }

    /// What a learner should read for a child that ended with `status`; nil when it finished.
    public static func message(for status: ExitStatus, in place: String, crashHint: String) -> String? {
        switch status {
        case .exitCode(finishedCode):
            return nil
        case .exitCode(Watchdog.exitCode):
            return "Deadlock suspected in \(place): the isolated check did not finish before its watchdog ran out. Something in your code blocked or never returned."
        case .exitCode(Watchdog.starvedExitCode):
            return "Deadlock suspected in \(place): the isolated check did not finish before its watchdog ran out. \(GlobalQueues.starvedSentence)"
        case .exitCode(sanitizerExitCode):
            return "ThreadSanitizer reported a data race in \(place) (exit code 66); its report names the file and line. \(crashHint)"
        case .exitCode(let code):
            return "The process exited with status \(code) before the check finished: something in your code called exit(). A check passes only when it runs to its end."
        case .signal(let signal):
            return "Crashed with \(signalName(signal)) in \(place). \(crashHint)"
        @unknown default:
            return "The isolated check of \(place) ended abnormally (\(status)). \(crashHint)"
        }
    }

    /// ThreadSanitizer's default exit code when it reported a race.
    public static let sanitizerExitCode: CInt = 66

    /// "SIGSEGV (11)", "SIGILL (4)", … for the signals a wrong implementation usually raises.
    public static func signalName(_ signal: CInt) -> String {
        let names: [CInt: String] = [
            SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL",
        ]
        return "\(names[signal] ?? "signal") (\(signal))"
    }
}

/// A timer for the child process of an isolated check: if the check is still running after
/// `seconds`, it prints "Deadlock suspected in <place>" on standard error and ends the child
/// with `Watchdog.exitCode`, which `IsolatedCheck.explain` turns into a failed check.
/// Swift Testing waits for an exit test's child without a limit, so every isolated check starts one.
public enum Watchdog {
    public static let exitCode: CInt = 86
    /// The same, when a block sent to a global queue then did not start either (`GlobalQueues`).
    public static let starvedExitCode: CInt = 87
    /// Whether this process is an isolated check's child: only there are the global queues the
    /// check's own (in the test process, the checks running beside it use them too).
    static let running = Locked(false)
    /// Far above what any isolated check needs on a correct solution, even on a loaded machine.
    public static let defaultSeconds: Double = 10

    /// A watchdog that ends the child when `progress()` has not changed for `quiet` seconds, or
    /// after `limit` in all: for an isolated check whose work is long but measurable (scenarios
    /// replayed, rounds done), so that a loaded machine that makes it slow is not taken for a
    /// deadlock (see `ProgressDeadline`).
    public static func start(quiet: Double, limit: Double, in place: String, progress: @escaping @Sendable () -> Int) {
        running.withLock { $0 = true }
        let thread = Thread {
            var deadline = ProgressDeadline(seconds: quiet, limit: limit, progress: progress())
            while !deadline.expired(progress: progress()) { usleep(10_000) }
            FileHandle.standardError.write(Data((deadline.report(in: place, waitingFor: "the isolated check finishing") + "\n").utf8))
            _exit(GlobalQueues.startWork() ? exitCode : starvedExitCode)
        }
        thread.start()
    }

    public static func start(seconds: Double = defaultSeconds, in place: String) {
        running.withLock { $0 = true }
        let message = DeadlockReport.message(in: place, waitingFor: "the isolated check finishing", seconds: seconds) + "\n"
        let thread = Thread {
            Thread.sleep(forTimeInterval: seconds)
            FileHandle.standardError.write(Data(message.utf8))
            _exit(GlobalQueues.startWork() ? exitCode : starvedExitCode)
        }
        thread.start()
    }
}
