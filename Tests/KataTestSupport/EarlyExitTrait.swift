import Foundation
import Testing

/// Makes an `exit()` during a check a failure: `@Suite("…", .exitIsAFailure)`.
///
/// Without it, code under test that calls `exit(0)` in the middle of a check ends the test
/// process with status 0, and `swift test` reports success for a run that never finished.
/// While a check of a suite with this trait runs, an `atexit` handler is armed: an exit then
/// prints which check was running and ends the process with status 1.
public struct EarlyExitTrait: SuiteTrait, TestTrait, TestScoping {
    public init() {}

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard !test.isSuite else { return try await function() }
        try await Self.whileRunning(test.name, function)
    }

    /// Runs `body` as the check `name`: an `exit()` meanwhile fails the process.
    public static func whileRunning(_ name: String, _ body: () async throws -> Void) async rethrows {
        RunningChecks.enter(name)
        defer { RunningChecks.leave(name) }
        try await body()
    }
}

extension Trait where Self == EarlyExitTrait {
    /// An `exit()` while one of the suite's checks runs fails the run instead of ending it quietly.
    public static var exitIsAFailure: Self { EarlyExitTrait() }
}

/// The checks running in this process, for the `atexit` handler.
enum RunningChecks {
    private static let names = Locked([String]())
    private static let installed = Locked(false)

    static func enter(_ name: String) {
        installed.withLock { done in
            guard !done else { return }
            done = true
            atexit { RunningChecks.exitedDuringCheck() }
        }
        names.withLock { $0.append(name) }
    }

    static func leave(_ name: String) {
        names.withLock { if let index = $0.firstIndex(of: name) { $0.remove(at: index) } }
    }

    private static func exitedDuringCheck() {
        let running = names.current
        guard !running.isEmpty else { return }
        let message = "\nThe process exited while \(running.joined(separator: ", ")) was running: something in your code called exit(). A check passes only when it runs to its end.\n"
        FileHandle.standardError.write(Data(message.utf8))
        _exit(1)
    }
}
