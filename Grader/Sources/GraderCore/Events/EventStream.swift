import Foundation

/// One test function the suite declared, from the event stream's `test` records.
public struct DeclaredTest: Equatable, Sendable {
    /// Swift Testing's identifier, e.g. `Module.Suite/function()/File.swift:12:6`.
    public var id: String
    /// The function name without `()`: the key the rubric uses.
    public var name: String
    /// The `@Test("…")` display name, or the function name when there is none.
    public var displayName: String
    public var file: String
    public var line: Int
}

/// What one failed expectation or recorded issue said.
public struct IssueReport: Equatable, Sendable, Codable {
    public var message: String
    public var file: String?
    public var line: Int?
}

/// What happened to one test in one run.
public struct TestRun: Equatable, Sendable {
    public var started = false
    public var ended = false
    public var issues: [IssueReport] = []
    /// When it started and ended, on the machine's monotonic clock (seconds).
    public var startedAt: Double?
    public var endedAt: Double?
    /// Swift Testing skipped it (`.enabled(if:)` was false): it did not run.
    public var skipped = false
    public var passed: Bool { ended && issues.isEmpty }
}

/// A run of one suite, read from Swift Testing's JSON event stream (version 0):
/// `test` records first, then `runStarted`, `testStarted`, `issueRecorded`, `testEnded`, `runEnded`.
public struct EventStream: Sendable {
    public private(set) var declared: [DeclaredTest] = []
    public private(set) var runs: [String: TestRun] = [:]
    /// Swift Testing began the run: it posts `runStarted` after a `test` record for every
    /// planned test and before any test runs (swift-testing swift-6.2-RELEASE and
    /// swift-6.3.1-RELEASE, Sources/Testing/Running/Runner.swift), and each record reaches the
    /// file at once (EntryPoint.swift writes it with Support/FileHandle.swift's `write`, whose
    /// `flushAfterward` defaults to true). A process that ends without it ran no test.
    public private(set) var runStarted = false
    public private(set) var runEnded = false

    public init() {}

    /// Reads a whole event-stream file; lines that are not valid records are skipped.
    public init(contentsOf url: URL) {
        self.init()
        guard let data = try? Data(contentsOf: url) else { return }
        for line in data.split(separator: UInt8(ascii: "\n")) { consume(line: Data(line)) }
    }

    public mutating func consume(line: Data) {
        guard let record = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
              let kind = record["kind"] as? String,
              let payload = record["payload"] as? [String: Any] else { return }
        if kind == "test" { declare(payload) } else if kind == "event" { handle(payload) }
    }

    /// Declared test functions, in source order (file, then line).
    public var functionsInSourceOrder: [DeclaredTest] {
        declared.sorted { ($0.file, $0.line) < ($1.file, $1.line) }
    }

    /// The tests that started and never ended: what was running when the process hung or died.
    public var unfinished: [DeclaredTest] {
        declared.filter { runs[$0.id]?.started == true && runs[$0.id]?.ended != true }
    }

    /// The part of the stream about the tests whose id starts with `prefix` (one exercise's suite
    /// out of a run of several).
    public func restricted(toIDsWithPrefix prefix: String) -> EventStream {
        var part = EventStream()
        part.declared = declared.filter { $0.id.hasPrefix(prefix) }
        part.runs = runs.filter { $0.key.hasPrefix(prefix) }
        part.runStarted = runStarted
        part.runEnded = runEnded
        return part
    }

    /// From the first test's start to the last test's end: how long these tests took, even
    /// when they ran alongside others.
    public var activeSeconds: Double {
        // Test functions only: Swift Testing starts every suite at once in a parallel run.
        let functions = Set(declared.map(\.id))
        let checks = runs.filter { functions.contains($0.key) }.values
        let starts = checks.compactMap(\.startedAt)
        let ends = checks.compactMap(\.endedAt)
        guard let first = starts.min(), let last = ends.max(), last > first else { return 0 }
        return last - first
    }

    /// Declared tests that have no result: never started, or started and never ended.
    public var withoutResult: [DeclaredTest] {
        declared.filter { runs[$0.id]?.ended != true }
    }

    /// Adds the results of a later run of the same suite that skipped the tests blamed for a
    /// crash or a hang: tests this stream has no result for take the later run's.
    public mutating func merge(_ later: EventStream) {
        for test in later.declared where !declared.contains(where: { $0.id == test.id }) { declared.append(test) }
        for (id, run) in later.runs where runs[id]?.ended != true && (run.started || (run.skipped && runs[id]?.started != true)) { runs[id] = run }
        runStarted = runStarted || later.runStarted
        runEnded = later.runEnded
    }

    private mutating func declare(_ payload: [String: Any]) {
        guard payload["kind"] as? String == "function",
              let id = payload["id"] as? String,
              let rawName = payload["name"] as? String else { return }
        let location = payload["sourceLocation"] as? [String: Any]
        let name = rawName.hasSuffix("()") ? String(rawName.dropLast(2)) : String(rawName.prefix { $0 != "(" })
        declared.append(DeclaredTest(
            id: id, name: name, displayName: payload["displayName"] as? String ?? name,
            file: (location?["fileID"] as? String) ?? "", line: location?["line"] as? Int ?? 0))
    }

    private mutating func handle(_ payload: [String: Any]) {
        let kind = payload["kind"] as? String
        if kind == "runStarted" { runStarted = true; return }
        if kind == "runEnded" { runEnded = true; return }
        guard let testID = payload["testID"] as? String else { return }
        // Issues in parameterized cases name the function's id; suites are not graded.
        let instant = (payload["instant"] as? [String: Any])?["absolute"] as? Double
        switch kind {
        case "testStarted":
            runs[testID, default: TestRun()].started = true
            runs[testID, default: TestRun()].startedAt = instant
        case "testEnded":
            runs[testID, default: TestRun()].ended = true
            runs[testID, default: TestRun()].endedAt = instant
        case "testSkipped":
            // Never a pass: `passed` needs `ended`. Only the maintainer's own tests may be skipped
            // by design (a test gated on KATA_MAINTAINER), and verify says which.
            runs[testID, default: TestRun()].skipped = true
        case "issueRecorded":
            let issue = payload["issue"] as? [String: Any]
            if issue?["isKnown"] as? Bool == true { return }
            runs[testID, default: TestRun()].issues.append(Self.issueReport(payload))
        default: break
        }
    }

    static func issueReport(_ payload: [String: Any]) -> IssueReport {
        let messages = (payload["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
        // Swift Testing says "Issue recorded" for Issue.record and forwarded exit-test issues:
        // the comment that follows is the message worth showing.
        // In Chinese, each part as the message catalog translates it (values kept).
        let useful = messages.filter { $0 != "Issue recorded" }.map(MessageCatalog.shown)
        let location = (payload["issue"] as? [String: Any])?["sourceLocation"] as? [String: Any]
        return IssueReport(
            message: useful.joined(separator: " — "),
            file: location?["fileID"] as? String, line: location?["line"] as? Int)
    }
}
