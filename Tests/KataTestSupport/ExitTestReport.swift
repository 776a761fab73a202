import Foundation
import Testing

/// Helpers around exit tests, so that a crash or a hang in an isolated check becomes a failed
/// check with a message that says what usually causes it.
///
/// Use them together:
/// ```swift
/// let result = await #expect(processExitsWith: .success, "…") {
///     Watchdog.start(seconds: 10, in: "withValue under contention")
///     … the check …
/// }
/// ExitTestReport.explain(result, in: "withValue under contention", crashHint: "…")
/// ```
/// Issues recorded inside the child process are forwarded to the parent by Swift Testing.
public enum ExitTestReport {
    /// Adds a teaching message when the isolated check did not exit cleanly: a watchdog exit
    /// becomes "deadlock suspected in <place>", a signal becomes "crashed with SIGxxx in <place>"
    /// followed by `crashHint`. Returns true when the child exited with status 0.
    @discardableResult
    public static func explain(
        _ result: ExitTest.Result?, in place: String, crashHint: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        guard let result else { return false }
        switch result.exitStatus {
        case .exitCode(0):
            return true
        case .exitCode(Watchdog.exitCode):
            let detail = String(decoding: result.standardErrorContent, as: UTF8.self)
                .split(separator: "\n").last(where: { $0.contains("Deadlock suspected") }).map(String.init)
            Issue.record(
                Comment(rawValue: detail ?? "Deadlock suspected in \(place): the isolated check did not finish in time."),
                sourceLocation: sourceLocation)
        case .exitCode(66):
            Issue.record(
                Comment(rawValue: "ThreadSanitizer reported a data race in \(place) (exit code 66); its report names the file and line. \(crashHint)"),
                sourceLocation: sourceLocation)
        case .exitCode(let code):
            Issue.record(
                Comment(rawValue: "The isolated check of \(place) exited with code \(code). \(crashHint)"),
                sourceLocation: sourceLocation)
        case .signal(let signal):
            Issue.record(
                Comment(rawValue: "Crashed with \(signalName(signal)) in \(place). \(crashHint)"),
                sourceLocation: sourceLocation)
        @unknown default:
            Issue.record(Comment(rawValue: "The isolated check of \(place) ended abnormally. \(crashHint)"), sourceLocation: sourceLocation)
        }
        return false
    }

    /// "SIGSEGV (11)", "SIGILL (4)", … for the signals a wrong implementation usually raises.
    public static func signalName(_ signal: CInt) -> String {
        let names: [CInt: String] = [
            SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL",
        ]
        return "\(names[signal] ?? "signal") (\(signal))"
    }
}

/// A timer for the child process of an exit test: if the check is still running after
/// `seconds`, it prints "Deadlock suspected in <place>" on standard error and ends the child
/// with `Watchdog.exitCode`, which `ExitTestReport.explain` turns into a failed check.
/// Swift Testing waits for an exit test's child without a limit, so every isolated check that
/// can block starts one.
public enum Watchdog {
    public static let exitCode: CInt = 86

    public static func start(seconds: Double = 10, in place: String) {
        let message = DeadlockReport.message(in: place, waitingFor: "the isolated check finishing", seconds: seconds) + "\n"
        let thread = Thread {
            Thread.sleep(forTimeInterval: seconds)
            FileHandle.standardError.write(Data(message.utf8))
            _exit(exitCode)
        }
        thread.start()
    }
}
