import Foundation

/// One run of the test binary over some tests, with its event stream read live.
struct SuiteRun {
    var stream: EventStream
    var termination: Termination
    /// ThreadSanitizer's report text (with `--sanitize`), from the log and the report files.
    var sanitizerText: String
}

/// Runs the test binary: which tests, in parallel or one at a time, with a deadline, live
/// progress, and a stop shortly after the run has ended (a process that lingers after its last
/// test, e.g. on a thread stuck in learner code, is not worth waiting for).
struct SuiteRunner {
    var layout: KataLayout
    var mode: BuildMode
    var excluded: [String]
    var workDirectory: URL
    var progress: any GradingProgress
    var environment: [String: String] = [:]
    /// Replaces the test binary (the grader's tests run a script that writes event streams).
    var testCommand: [String]?
    var outputLimit = ChildLimits(deadline: 0).outputLimit
    /// The test binaries (needed unless `testCommand` replaces them).
    var products: TestProducts?

    /// How long a process may linger after its run ended.
    static let lingerSeconds = 1.5

    /// Runs the tests that `filter` selects (a regular expression over test ids), leaving out the
    /// ids in `skipping`. `name` names the files in `.kata/runs/`. `target` is the test target
    /// whose product runs when each target has its own (Swift Build); the native build system's
    /// one product holds every target.
    func run(name: String, filter: String, target: String = "", skipping: [String] = [], parallel: Bool, deadline: Double) throws -> SuiteRun {
        guard let command = testCommand ?? products?.command(target: target) else { throw GraderError.cannotRun("no test binary to run") }
        let streamFile = workDirectory.appendingPathComponent("\(name).jsonl")
        let outputFile = workDirectory.appendingPathComponent("\(name).log")
        let tsanDirectory = workDirectory.appendingPathComponent("tsan-\(name)")
        try? FileManager.default.removeItem(at: streamFile)
        var environment = mode.environment(excluding: excluded).merging(self.environment) { $1 }
        if mode.sanitize {
            try? FileManager.default.removeItem(at: tsanDirectory)
            try FileManager.default.createDirectory(at: tsanDirectory, withIntermediateDirectories: true)
            // Exit tests capture their child's standard error, so reports go to files; and a
            // report must not change a child's exit code, or the race shows up as a failed
            // check instead of as the data race it is.
            environment["TSAN_OPTIONS"] = "log_path=\(tsanDirectory.path)/report:exitcode=0"
        }
        let tail = EventStreamTail(url: streamFile)
        let termination = try ChildProcess.run(
            command + BuildMode.testOptions(filter: filter, eventStream: streamFile.path, parallel: parallel, skipping: skipping),
            in: layout.root, environment: environment, outputFile: outputFile,
            limits: ChildLimits(deadline: deadline, outputLimit: outputLimit)
        ) {
            tail.poll()
            progress.running(tail.running.map { ($0.test, $0.seconds) })
            guard let ended = tail.runEndedAt else { return false }
            return Date().timeIntervalSince(ended) > Self.lingerSeconds
        }
        let stream = EventStream(contentsOf: streamFile)
        var ending = termination
        if case .exited(let code) = termination, code != 0, let signal = Self.signalReportedBySwiftTest(in: outputFile) {
            ending = .signalled(signal)
        } else if case .exited(let code) = termination, !stream.runEnded {
            ending = .exitedEarly(code)
        }
        var sanitizerText = ""
        if mode.sanitize {
            sanitizerText = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
            for file in (try? FileManager.default.contentsOfDirectory(at: tsanDirectory, includingPropertiesForKeys: nil)) ?? [] {
                sanitizerText += (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            }
        }
        return SuiteRun(stream: stream, termination: ending, sanitizerText: sanitizerText)
    }

    /// `swift test` (how the grader runs the suites on macOS) reports a test process killed by a
    /// signal with status 1 and a line: "error: Exited with unexpected signal code N" (SwiftPM
    /// 6.2) or "… exited with unexpected signal code N" (6.3), in SwiftTestCommand.swift. The
    /// signal, when the log's last lines say so.
    static func signalReportedBySwiftTest(in log: URL) -> Int32? {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n").suffix(20).reversed() {
            guard let range = line.range(of: "xited with unexpected signal code ") else { continue }
            return Int32(line[range.upperBound...].prefix { $0.isNumber })
        }
        return nil
    }

    /// A filter that selects exactly `tests` (by id).
    static func filter(selecting tests: [DeclaredTest]) -> String {
        "^(" + tests.map { NSRegularExpression.escapedPattern(for: $0.id) }.joined(separator: "|") + ")$"
    }

    /// A filter that selects whole suites.
    static func filter(suitesOf exercises: [String]) -> String {
        "^(" + exercises.map { "\($0)Tests" }.joined(separator: "|") + ")\\."
    }
}
