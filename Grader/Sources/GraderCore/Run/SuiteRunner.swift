import Foundation

/// One run of the test binary over some tests, with its event stream read live.
struct SuiteRun {
    var stream: EventStream
    var termination: Termination
    /// ThreadSanitizer's report text (with `--sanitize`), from the log and the report files.
    var sanitizerText: String
    /// With `--sanitize`: the race check canaries whose reports were missing from a process of
    /// this run (merged runs keep every run's missing ones).
    var missingCanaries: Set<RaceCanaryKind> = []
    /// The last lines of the output, for a reason when a sanitized run went wrong.
    var outputTail = ""
    /// Where this run's ThreadSanitizer reports are.
    var reportFolder: URL?
    /// The other exercises whose suites ran in the same process (the native build system's one
    /// test product): their files may share a base name with this exercise's.
    var sharedWith: [String] = []
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
    /// Report folders whose names hold a space, a comma, a colon and Chinese characters, so that
    /// every run of `grader verify` proves that ThreadSanitizer's options survive such a path.
    var awkwardReportPath = false
    static let awkwardSuffix = " 学习, a:b"
    /// Runs the test command through this (verify's faults: a limited address space).
    var commandPrefix: [String] = []
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
        let tsanDirectory = workDirectory.appendingPathComponent("tsan-\(name)" + (awkwardReportPath ? Self.awkwardSuffix : ""))
        try? FileManager.default.removeItem(at: streamFile)
        var environment = mode.environment(excluding: excluded).merging(self.environment) { $1 }
        var filter = filter
        // A course whose path holds both kinds of quote (which no quoting survives) keeps its
        // reports under the system's temporary folder.
        let reportFolder = SanitizerOptions.value(logPath: tsanDirectory.path) != nil ? tsanDirectory
            : FileManager.default.temporaryDirectory.appendingPathComponent("kata-tsan-\(getpid())-\(name)")
        if mode.sanitize {
            try? FileManager.default.removeItem(at: reportFolder)
            try FileManager.default.createDirectory(at: reportFolder, withIntermediateDirectories: true)
            environment["TSAN_OPTIONS"] = SanitizerOptions.value(logPath: reportFolder.path + "/report")
            // Every sanitized run also races the canaries (Tests/KataTestSupport/RaceCanary.swift).
            filter = "(?:\(filter))|^KataTestSupport\\.RaceCanary\\b"
        }
        let tail = EventStreamTail(url: streamFile)
        let termination = try ChildProcess.run(
            commandPrefix + command + BuildMode.testOptions(filter: filter, eventStream: streamFile.path, parallel: parallel, skipping: skipping),
            in: layout.root, environment: environment, outputFile: outputFile,
            limits: ChildLimits(deadline: deadline, outputLimit: outputLimit)
        ) {
            tail.poll()
            progress.running(tail.running.map { ($0.test, $0.seconds) })
            guard let ended = tail.runEndedAt else { return false }
            return Date().timeIntervalSince(ended) > Self.lingerSeconds
        }
        let stream = EventStream(contentsOf: streamFile)
        // A sanitized run that never started is the race check's to explain ("ThreadSanitizer
        // could not start"): its exercises read "race check could not run", the rest still counts.
        if !stream.runStarted, termination.endedByItself, !mode.sanitize {
            throw RunNotStarted.error(termination, command: command, log: outputFile, layout: layout)
        }
        var ending = termination
        if case .exited(let code) = termination, code != 0, let signal = Self.signalReportedBySwiftTest(in: outputFile) {
            ending = .signalled(signal)
        } else if case .exited(let code) = termination, !stream.runEnded {
            ending = .exitedEarly(code)
        }
        var run = SuiteRun(stream: stream, termination: ending, sanitizerText: "")
        if mode.sanitize {
            let output = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
            run.outputTail = output.split(separator: "\n").suffix(30).joined(separator: "\n")
            run.sanitizerText = output
            for file in (try? FileManager.default.contentsOfDirectory(at: reportFolder, includingPropertiesForKeys: nil)) ?? [] {
                run.sanitizerText += (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            }
            run.reportFolder = reportFolder
            run.missingCanaries = Set(RaceCanaryKind.allCases).subtracting(SanitizerReport.canaries(in: run.sanitizerText))
        }
        return run
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
