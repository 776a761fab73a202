import Foundation

/// The grader's own steps, timed, for `--timings FILE`: what the loop benchmark
/// (`grader loop-bench`) reads to split a grade into its phases, instead of parsing screen text.
/// One recorder per process: a grade (or each of watch's re-grades) starts it afresh.
public final class PhaseTimings: @unchecked Sendable {
    public struct Phase: Codable, Equatable, Sendable {
        public var name: String
        public var seconds: Double
        public init(name: String, seconds: Double) {
            self.name = name
            self.seconds = seconds
        }
    }

    /// What `--timings FILE` holds: the phases in the order they ended (a name may come more than
    /// once: a build tried again without an exercise that does not compile), and the seconds from
    /// the start to the moment the file was written.
    public struct File: Codable, Equatable, Sendable {
        public var totalSeconds: Double
        public var phases: [Phase]
    }

    public static let shared = PhaseTimings()

    private let lock = NSLock()
    private var phases: [Phase] = []
    private var started = Date()

    public func restart() {
        lock.lock(); defer { lock.unlock() }
        phases = []
        started = Date()
    }

    public func add(_ name: String, seconds: Double) {
        lock.lock(); defer { lock.unlock() }
        phases.append(Phase(name: name, seconds: seconds))
    }

    /// Runs `body` and records its wall time under `name`.
    public func measure<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        let start = Date()
        defer { add(name, seconds: Date().timeIntervalSince(start)) }
        return try body()
    }

    public var file: File {
        lock.lock(); defer { lock.unlock() }
        return File(totalSeconds: Date().timeIntervalSince(started), phases: phases)
    }

    public func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(file).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

/// The phase names the grader records (the loop benchmark's columns).
public enum PhaseName {
    /// A build's phases, from SwiftPM's lines (`SwiftPMPhases`): the learner's (or solutions')
    /// build, or the race check's ThreadSanitizer build.
    public static func build(sanitized: Bool, _ part: SwiftPMPhases.Part) -> String {
        (sanitized ? "ThreadSanitizer build: " : "build: ") + part.rawValue
    }
    /// A build skipped because nothing it reads changed (`BuildStamp`).
    public static func buildSkipped(sanitized: Bool) -> String { sanitized ? "ThreadSanitizer build: skipped" : "build: skipped" }
    public static let suites = "running the suites"
    public static let sanitizedRun = "ThreadSanitizer run"
    public static let modelBuild = "systematic checks: build"
    public static let modelRun = "systematic checks: run"
}
