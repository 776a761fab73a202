import Foundation
import Testing
@testable import GraderCore

/// ThreadSanitizer's reports as each platform prints them, and the options that must survive any
/// path a learner clones the course into.
@Suite("ThreadSanitizer's report formats and options")
struct SanitizerReportFormatsTests {
    /// Apple platforms symbolize with `atos`: demangled names and base names. The frame forms are
    /// those of published reports: swiftlang/swift#61073 (`closure #3 in _urlFromBytes_impl<A, B>(_:baseURL:callback:)
    /// Parser.swift:74 (spm-tsancheck:x86_64+0x100102a60)`, `<compiler-generated>`) and
    /// iina/iina#3762 (`PlayerCore.first.unsafeMutableAddressor PlayerCore.swift:16 (IINA:arm64+0x100631e98)`,
    /// `<null>:95860036`), here with the exercise's names.
    static let darwinReport = """
        ==================
        WARNING: ThreadSanitizer: Swift access race (pid=41452)
          Modifying access of Swift variable at 0x000100ffe33a by thread T1:
            #0 closure #1 in AsyncOperation.finish() AsyncOperation.swift:71 (ConcurrencyKataPackageTests:arm64+0x100102a60)
            #1 partial apply for closure #1 in AsyncOperation.finish() <compiler-generated> (ConcurrencyKataPackageTests:arm64+0x100102deb)
            #2 __tsan::invoke_and_release_block(void*) <null>:95860036 (libclang_rt.tsan_osx_dynamic.dylib:arm64e+0x7d708)

          Previous read of size 8 at 0x000100ffe33a by main thread:
            #0 AsyncOperation.isFinished.getter AsyncOperation.swift:40 (ConcurrencyKataPackageTests:arm64+0x1001e4b72)
            #1 closure #2 in LifecycleTests.finishes() LifecycleTests.swift:88 (ConcurrencyKataPackageTests:arm64+0x10010107c)

        SUMMARY: ThreadSanitizer: Swift access race AsyncOperation.swift:71 in closure #1 in AsyncOperation.finish()
        ==================
        """

    static let files = ["Exercises/AsyncOperation/AsyncOperation.swift", "Exercises/AsyncOperation/State.swift"]

    @Test("Apple's form: a base name is matched to the exercise's file, with both accesses and their threads")
    func darwinBaseNames() throws {
        let finding = try #require(SanitizerReport.findings(in: Self.darwinReport, exercise: "AsyncOperation", files: Self.files).first)
        #expect(finding.file == "Exercises/AsyncOperation/AsyncOperation.swift" && finding.line == 71)
        #expect(finding.accesses.map(\.thread) == ["thread T1", "main thread"])
        #expect(finding.accesses.map { $0.ownFrames.map(\.line) } == [[71], [40]])
        #expect(finding.accesses[0].ownFrames[0].function == "closure #1 in AsyncOperation.finish()")
        #expect(finding.sameBaseName.isEmpty)
    }

    @Test("Apple's form: a base name that two of the exercise's files share is said to be ambiguous")
    func ambiguousBaseName() throws {
        let files = ["Exercises/AsyncOperation/AsyncOperation.swift", "Exercises/AsyncOperation/Old/AsyncOperation.swift"]
        let finding = try #require(SanitizerReport.findings(in: Self.darwinReport, exercise: "AsyncOperation", files: files).first)
        #expect(finding.sameBaseName == ["Exercises/AsyncOperation/Old/AsyncOperation.swift"])
        #expect(RaceReportText.lines(finding, allFrames: false).contains { $0.contains("may also be Exercises/AsyncOperation/Old/AsyncOperation.swift") })
    }

    @Test("Apple's form: a report whose frames are all outside the exercise is not the learner's")
    func darwinNotOwn() {
        #expect(SanitizerReport.findings(in: Self.darwinReport, exercise: "AsyncOperation", files: ["Exercises/AsyncOperation/Other.swift"])
            .allSatisfy { $0.file == nil })
    }

    @Test("Linux's form: a whole path with spaces, a comma, a colon and Chinese characters")
    func linuxAwkwardPath() throws {
        let report = """
            WARNING: ThreadSanitizer: data race (pid=9)
              Write of size 8 at 0x7b0c00000010 by thread T2:
                #0 $s14AsyncOperationAAC6finishyyF /Users/me/学习/my kata, a:b/Exercises/AsyncOperation/AsyncOperation.swift:71:15 (ConcurrencyKataPackageTests.xctest+0x1) (BuildId: 60c9)
            """
        let finding = try #require(SanitizerReport.findings(in: report, exercise: "AsyncOperation").first)
        #expect(finding.file == "Exercises/AsyncOperation/AsyncOperation.swift" && finding.line == 71)
    }

    @Test("Linux's form: an access whose only frame in the learner's file has no line still names the file and the function, never \"not in your code\"")
    func ownFrameWithoutLine() throws {
        let report = """
            WARNING: ThreadSanitizer: Swift access race (pid=12)
              Modifying access of Swift variable at 0x7b0c00000010 by thread T3:
                #0 $s13BoundedBufferAAC3put_7timeoutyx_SdSgtKF /tmp/kata/Exercises/BoundedBuffer/BoundedBuffer.swift (ConcurrencyKataPackageTests.xctest+0x1) (BuildId: 60c9)
                #1 $s10Foundation6ThreadC4mainyyF <null> (libFoundation.so+0x3795f8)
              Previous read of size 8 at 0x7b0c00000010 by thread T4:
                #0 $s13BoundedBufferAAC4take7timeoutxSdSg_tKF /tmp/kata/Exercises/BoundedBuffer/BoundedBuffer.swift:40:9 (ConcurrencyKataPackageTests.xctest+0x2)
            """
        let finding = try #require(SanitizerReport.findings(in: report, exercise: "BoundedBuffer").first)
        #expect(finding.file == "Exercises/BoundedBuffer/BoundedBuffer.swift" && finding.line == 40, "the frame with a line is named first")
        Language.$override.withValue(.english) {
            let lines = RaceReportText.lines(finding, allFrames: false)
            #expect(!lines.contains { $0.contains("not in your code") }, "\(lines)")
            #expect(lines.contains { $0.contains("Exercises/BoundedBuffer/BoundedBuffer.swift (ThreadSanitizer gave no line), in BoundedBuffer.BoundedBuffer.put") }, "\(lines)")
        }
        let onlyLineless = report.components(separatedBy: "  Previous read")[0]
        let alone = try #require(SanitizerReport.findings(in: onlyLineless, exercise: "BoundedBuffer").first)
        #expect(alone.file == "Exercises/BoundedBuffer/BoundedBuffer.swift" && alone.line == nil)
    }

    /// Measured on this toolchain (Swift 6.3.1, Linux x86_64, 2 cores, 2026-11-27), trimmed, with
    /// the clone's path written as `/tmp/学习/my kata, a:b`: the racing access's own frame names
    /// the file without a line; its caller in the same file has one.
    static let linuxCanary = """
        WARNING: ThreadSanitizer: Swift access race (pid=17792)
          Modifying access of Swift variable at 0x5585b8086298 by thread T6:
            #0 $s15KataTestSupport29kataRaceCanaryInIsolatedCheck33_E02C3DA974213164DFB6DD4DFB295B4BLLyyF /tmp/学习/my kata, a:b/Tests/KataTestSupport/RaceCanary.swift (ConcurrencyKataPackageTests.xctest+0x171297) (BuildId: 75b435fa769b7828cdf5ca73e09fd91e8695daa6)
            #1 $s15KataTestSupport14raceTwoThreads33_E02C3DA974213164DFB6DD4DFB295B4BLLyyyyYbcF10Foundation6ThreadCSiXEfU_yyYbcfU_ /tmp/学习/my kata, a:b/Tests/KataTestSupport/RaceCanary.swift:51:13 (ConcurrencyKataPackageTests.xctest+0x16ef6b) (BuildId: 75b435fa769b7828cdf5ca73e09fd91e8695daa6)
            #2 $s15KataTestSupport14raceTwoThreads33_E02C3DA974213164DFB6DD4DFB295B4BLLyyyyYbcF10Foundation6ThreadCSiXEfU_yyYbcfU_TA /<compiler-generated> (ConcurrencyKataPackageTests.xctest+0x170645) (BuildId: 75b435fa769b7828cdf5ca73e09fd91e8695daa6)
            #3 $s10Foundation6ThreadC4mainyyF <null> (libFoundation.so+0x3795f8) (BuildId: bbe2057ad9a7c4b7122ec47d2500ff98e0395cef)

          Previous write of size 1 at 0x5585b8086298 by thread T7:
            #0 $s15KataTestSupport29kataRaceCanaryInIsolatedCheck33_E02C3DA974213164DFB6DD4DFB295B4BLLyyF /tmp/学习/my kata, a:b/Tests/KataTestSupport/RaceCanary.swift:72:89 (ConcurrencyKataPackageTests.xctest+0x1712bb) (BuildId: 75b435fa769b7828cdf5ca73e09fd91e8695daa6)
        SUMMARY: ThreadSanitizer: Swift access race /tmp/学习/my kata, a:b/Tests/KataTestSupport/RaceCanary.swift in $s15KataTestSupport29kataRaceCanaryInIsolatedCheck33_E02C3DA974213164DFB6DD4DFB295B4BLLyyF
        """

    /// The same, where the name held a word of the module's name: mangling abbreviated it, so it
    /// is not recognized, and the race check says it could not run rather than pass (measured).
    static let abbreviatedCanary = """
        WARNING: ThreadSanitizer: Swift access race (pid=4952)
            #0 $s15KataTestSupport016kataRaceCanaryInB7Process33_E02C3DA974213164DFB6DD4DFB295B4BLLyyF /k/Tests/KataTestSupport/RaceCanary.swift:41:85 (x+0x5b8d9b)
        """

    @Test("The canaries are recognized mangled (Linux) and demangled (Apple platforms), and never counted as the learner's")
    func canaries() {
        #expect(SanitizerReport.canaries(in: Self.linuxCanary) == [.isolatedCheck])
        #expect(SanitizerReport.canaries(in: Self.abbreviatedCanary).isEmpty)
        let darwin = "WARNING: ThreadSanitizer: Swift access race (pid=3)\n    #0 kataRaceCanaryInParentProcess() RaceCanary.swift:45 (x:arm64+0x1)\n"
        #expect(SanitizerReport.canaries(in: darwin) == [.testProcess])
        #expect(SanitizerReport.canaries(in: Self.darwinReport).isEmpty)
        #expect(SanitizerReport.findings(in: Self.linuxCanary + darwin, exercise: "KataTestSupport", files: ["Tests/KataTestSupport/RaceCanary.swift"]).isEmpty)
    }

    /// Apple's form when `atos` cannot attach (a sandbox, no task port): ThreadSanitizer falls back
    /// on `dladdr`, which gives demangled names and no files (compiler-rt
    /// `sanitizer_symbolizer_mac.cpp`, `DlAddrSymbolizer::SymbolizePC`), so the frame prints the
    /// module and offset where the file would be.
    static let darwinNamesOnly = """
        WARNING: ThreadSanitizer: Swift access race (pid=41452)
          Modifying access of Swift variable at 0x000100ffe33a by thread T2:
            #0 kataRaceCanaryInParentProcess() (ConcurrencyKataPackageTests:arm64+0x1234)
            #1 closure #1 in raceTwoThreads(_:) (ConcurrencyKataPackageTests:arm64+0x1290)
          Previous modifying access of Swift variable at 0x000100ffe33a by thread T1:
            #0 kataRaceCanaryInParentProcess() (ConcurrencyKataPackageTests:arm64+0x1234)
        SUMMARY: ThreadSanitizer: Swift access race in kataRaceCanaryInParentProcess()
        ==================
        WARNING: ThreadSanitizer: Swift access race (pid=41452)
          Modifying access of Swift variable at 0x000100ffe400 by thread T5:
            #0 closure #1 in AsyncOperation.finish() (ConcurrencyKataPackageTests:arm64+0x100102a60)
          Previous read of size 8 at 0x000100ffe400 by main thread:
            #0 AsyncOperation.isFinished.getter (ConcurrencyKataPackageTests:arm64+0x1001e4b72)
        SUMMARY: ThreadSanitizer: Swift access race in closure #1 in AsyncOperation.finish()
        """

    @Test("Apple's form, names and no files: no canary counts, and the learner's race is reported as one that names no file")
    func darwinNamesWithoutFiles() {
        #expect(SanitizerReport.canaries(in: Self.darwinNamesOnly).isEmpty)
        #expect(SanitizerReport.reportsWithoutSourceLines(in: Self.darwinNamesOnly) == ["Swift access race (pid=41452)"])
        #expect(SanitizerReport.findings(in: Self.darwinNamesOnly, exercise: "AsyncOperation", files: Self.files).allSatisfy { $0.file == nil })
        // The canary's own frame may lack a line (measured here on Linux: the racing access's frame
        // names the file alone); a caller in RaceCanary.swift with a line is enough.
        let callerHasLine = """
            WARNING: ThreadSanitizer: Swift access race (pid=3)
              Modifying access of Swift variable at 0x1 by thread T2:
                #0 kataRaceCanaryInIsolatedCheck() (ConcurrencyKataPackageTests:arm64+0x1234)
                #1 closure #1 in raceTwoThreads(_:) RaceCanary.swift:56 (ConcurrencyKataPackageTests:arm64+0x1290)
            """
        #expect(SanitizerReport.canaries(in: callerHasLine) == [.isolatedCheck])
        #expect(SanitizerReport.reportsWithoutSourceLines(in: Self.darwinReport).isEmpty)
    }

    /// One process ran the suites of AsyncOperation and AsyncBridge (the native build system's one
    /// test product). The learner's AsyncOperation raced; Apple's form names `AsyncOperation.swift`,
    /// which AsyncBridge's given code also has.
    static let asyncOperationFiles = ["Exercises/AsyncOperation/AsyncOperation.swift"]
    static let asyncBridgeFiles = ["Exercises/AsyncBridge/AsyncBridge.swift", "Given/AsyncBridge/AsyncOperation.swift", "Given/AsyncBridge/Given.swift"]

    @Test("Apple's form: a base name two exercises of one process share is not blamed on either")
    func sharedBaseNameAcrossExercises() {
        #expect(SanitizerReport.sharedBaseNames(in: Self.darwinReport, files: Self.asyncBridgeFiles, otherFiles: Self.asyncOperationFiles) == ["AsyncOperation.swift"])
        #expect(SanitizerReport.sharedBaseNames(in: Self.darwinReport, files: Self.asyncBridgeFiles, otherFiles: []).isEmpty)
        let filesOf = { (name: String) in name == "AsyncOperation" ? Self.asyncOperationFiles : Self.asyncBridgeFiles }
        let bridge = Rubric.Exercise(name: "AsyncBridge", title: "AsyncBridge", checks: [], timeoutSeconds: 20)
        var shared = SuiteRun(stream: EventStream(), termination: .exited(0), sanitizerText: Self.darwinReport)
        shared.sharedWith = ["AsyncOperation"]
        guard case .couldNotRun(let reason) = SanitizedRunVerdict.verdict(for: bridge, runs: [shared], files: Self.asyncBridgeFiles, filesOf: filesOf) else {
            Issue.record("a race in a shared base name was blamed on AsyncBridge")
            return
        }
        #expect(reason.contains("AsyncOperation.swift by its base name only"))
        // Run alone (no other exercise in the process), the same report is AsyncOperation's.
        let operation = Rubric.Exercise(name: "AsyncOperation", title: "AsyncOperation", checks: [], timeoutSeconds: 20)
        let alone = SuiteRun(stream: EventStream(), termination: .exited(0), sanitizerText: Self.darwinReport)
        guard case .race(let finding) = SanitizedRunVerdict.verdict(for: operation, runs: [alone], files: Self.asyncOperationFiles, filesOf: filesOf) else {
            Issue.record("the race run alone was not AsyncOperation's")
            return
        }
        #expect(finding.file == "Exercises/AsyncOperation/AsyncOperation.swift" && finding.line == 71)
        // Linux's whole paths say which exercise it was: nothing is shared.
        let linux = Self.darwinReport.replacingOccurrences(of: " AsyncOperation.swift:", with: " /k/Exercises/AsyncOperation/AsyncOperation.swift:")
        #expect(SanitizerReport.sharedBaseNames(in: linux, files: Self.asyncBridgeFiles, otherFiles: Self.asyncOperationFiles).isEmpty)
    }

    @Test("Apple's form: two accesses inside Mutex.withLock are a race (ThreadSanitizer sees os_unfair_lock there)")
    func darwinMutex() {
        func report(_ previous: String) -> String {
            """
            WARNING: ThreadSanitizer: Swift access race (pid=5)
              Modifying access of Swift variable at 0x1 by thread T3:
                #0 closure #1 in Box.bump() Gate.swift:5 (x:arm64+0x1)
                #1 Mutex.withLock<A, B>(_:) <compiler-generated> (x:arm64+0x2)
              Previous write of size 8 at 0x1 by thread T1:
                #0 \(previous) Gate.swift:9 (x:arm64+0x3)
                #1 Box.peek() Gate.swift:9 (x:arm64+0x4)
            """
        }
        let files = ["Exercises/Gate/Gate.swift"]
        #expect(SanitizerReport.findings(in: report("Mutex.withLock<A, B>(_:)"), exercise: "Gate", files: files).count == 1,
                "two different mutexes around one value")
        #expect(SanitizerReport.findings(in: report("Box.peek()"), exercise: "Gate", files: files).count == 1)
        // Linux's form of the same (mangled, whole paths) is set aside: there ThreadSanitizer cannot see Mutex.
        #expect(SanitizerReport.findings(in: DiagnosticsTests.mutexReport(previousInsideLock: true), exercise: "Gate").isEmpty)
    }

    /// compiler-rt's `FlagParser` (`sanitizer_flag_parser.cpp`): names end at `=`; a value is
    /// quoted with `'` or `"`, or ends at a space, `,`, `:`, tab, newline or carriage return.
    static func parsedLikeCompilerRT(_ options: String) -> [String: String]? {
        var result: [String: String] = [:]
        var rest = Substring(options)
        let separators: Set<Character> = [" ", ",", ":", "\t", "\n", "\r"]
        while true {
            rest = rest.drop { separators.contains($0) }
            guard !rest.isEmpty else { return result }
            guard let equals = rest.firstIndex(of: "=") else { return nil }
            let name = String(rest[..<equals])
            if name.contains(where: separators.contains) { return nil }
            rest = rest[rest.index(after: equals)...]
            if let quote = rest.first, quote == "'" || quote == "\"" {
                let body = rest.dropFirst()
                guard let end = body.firstIndex(of: quote) else { return nil }
                result[name] = String(body[..<end])
                rest = body[body.index(after: end)...]
            } else {
                let end = rest.firstIndex(where: separators.contains) ?? rest.endIndex
                result[name] = String(rest[..<end])
                rest = rest[end...]
            }
        }
    }

    @Test("The options survive a path with spaces, a comma, a colon, quotes and Chinese characters", arguments: [
        "/Users/me/学习/my kata/.kata/runs/exercises-tsan/tsan-all/report",
        "/tmp/a, b:c/Mobile Documents/com~apple~CloudDocs/Swift Course/report",
        "/tmp/it's here/report",
        "/tmp/say \"hi\"/report",
    ])
    func optionsSurvivePaths(path: String) throws {
        let options = try #require(SanitizerOptions.value(logPath: path))
        let parsed = try #require(Self.parsedLikeCompilerRT(options))
        #expect(parsed == ["log_path": path, "exitcode": "0", "strip_env": "0"])
    }

    @Test("A path with both kinds of quote cannot be quoted, and says so")
    func unquotable() {
        #expect(SanitizerOptions.value(logPath: "/tmp/it's \"here\"/report") == nil)
    }

    @Test("ThreadSanitizer's start-up complaints are read as such")
    func startupErrors() {
        #expect(SanitizedRunVerdict.startupError(in: "==21482==WARNING: Program is run with limited virtual address space\n==21482==ERROR: ThreadSanitizer setrlimit() failed 22")
            == "ERROR: ThreadSanitizer setrlimit() failed 22")
        #expect(SanitizedRunVerdict.startupError(in: "ThreadSanitizer: ERROR: expected '=' in TSAN_OPTIONS") != nil)
        #expect(SanitizedRunVerdict.startupError(in: "◇ Test run started.") == nil)
    }
}
