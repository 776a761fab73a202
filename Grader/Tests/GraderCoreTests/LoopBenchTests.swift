import Foundation
import Testing
@testable import GraderCore

/// The loop benchmark's parts that need no build: SwiftPM's lines split into phases, the grader's
/// own phase recorder and `--timings`, watch's screens read from a pipe, the saves it makes, and
/// the medians, Markdown and JSON it writes.
@Suite("Loop benchmark: phases, screens, saves and report")
struct LoopBenchTests {
    @Test("A SwiftPM line names the step that has just finished, or nothing")
    func partOfLine() {
        #expect(SwiftPMPhases.part(of: "Building for debugging...") == .planning)
        #expect(SwiftPMPhases.part(of: "[0/1] Planning build") == .planning)
        #expect(SwiftPMPhases.part(of: "[3/80] Write swift-version--58304C5D6DBC2206.txt") == .planning)
        #expect(SwiftPMPhases.part(of: "[12/80] Compiling GraderCore Builder.swift") == .compiling)
        #expect(SwiftPMPhases.part(of: "[13/80] Emitting module GraderCore") == .compiling)
        #expect(SwiftPMPhases.part(of: "[79/80] Linking grader") == .linking)
        #expect(SwiftPMPhases.part(of: "Build complete! (12.34s)") == .other)
        #expect(SwiftPMPhases.part(of: "/x/Foo.swift:3:5: error: cannot find 'x' in scope") == nil)
    }

    @Test("A build's wall time is split by the arrival of its lines, and the parts sum to it")
    func splitBuild() {
        let lines: [(offset: Double, text: String)] = [
            (1.0, "Building for debugging..."),
            (4.0, "[5/9] Compiling A a.swift"),
            (4.5, "/x/a.swift:1:1: warning: something"),
            (6.0, "[6/9] Emitting module A"),
            (9.0, "[9/9] Linking grader"),
            (9.5, "Build complete! (9.50s)"),
        ]
        let parts = SwiftPMPhases.split(lines, end: 10)
        #expect(parts[.planning] == 1)
        // 1 → 4 ends with a compile line; the warning goes with it; 4.5 → 6 ends with a module.
        #expect(parts[.compiling] == 5)
        #expect(parts[.linking] == 3)
        // The "Build complete!" line and what follows until the process ended.
        #expect(parts[.other] == 1)
        #expect(parts.values.reduce(0, +) == 10)
    }

    @Test("A build with nothing to do is all manifest and planning; lines out of order never make negative time")
    func splitNoOpBuild() {
        #expect(SwiftPMPhases.split([], end: 2)[.planning] == 2)
        let parts = SwiftPMPhases.split([(3, "[1/2] Compiling A a.swift"), (2, "[2/2] Linking b")], end: 3)
        #expect(parts.values.allSatisfy { $0 >= 0 })
        #expect(parts.values.reduce(0, +) == 3)
    }

    @Test("Timed lines: a line counts when its newline arrives, with the moment it was read")
    func timedLines() {
        let start = Date()
        let lines = TimedLines(started: start)
        lines.append(Data("one\ntw".utf8), at: start.addingTimeInterval(1))
        lines.append(Data("o\n".utf8), at: start.addingTimeInterval(2))
        #expect(lines.lines.map(\.text) == ["one", "two"])
        #expect(lines.lines.map { $0.at.timeIntervalSince(start) } == [1, 2])
    }

    @Test("--timings: phases in the order they ended, and the seconds since the start")
    func timingsFile() throws {
        let timings = PhaseTimings()
        timings.add("build: compiling", seconds: 2)
        let value = timings.measure("running the suites") { 7 }
        #expect(value == 7)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("timings-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try timings.write(to: file.path)
        let read = try JSONDecoder().decode(PhaseTimings.File.self, from: Data(contentsOf: file))
        #expect(read.phases.map(\.name) == ["build: compiling", "running the suites"])
        #expect(read.phases[0].seconds == 2)
        #expect(read.totalSeconds >= 0)
        #expect(try Arguments.parse(["--timings", "t.json"]).timingsFile == "t.json")
        #expect(try Arguments.parse(["watch", "ThreadSafeDictionary", "--timings", "t.json"]).timingsFile == "t.json")
    }

    @Test("loop-bench's command line")
    func arguments() throws {
        let parsed = try Arguments.parse(["loop-bench", "BoundedBuffer", "--runs", "5", "--only", "watch,suites", "--suites", "A,B", "--json", "j", "--markdown", "m"])
        #expect(parsed.command == .loopBench)
        #expect(parsed.exercises == ["BoundedBuffer"])
        #expect(parsed.runs == 5)
        #expect(parsed.only == ["watch", "suites"])
        #expect(parsed.suites == ["A", "B"])
        #expect(parsed.jsonFile == "j" && parsed.markdownFile == "m")
        #expect(throws: GraderError.self) { try Arguments.parse(["loop-bench", "--runs", "0"]) }
    }

    @Test("A grade's phases: swift run's build of the grader by its lines, the grader's start, its own phases, the rest; they sum to the wall time")
    func gradePhases() {
        let lines = TimedLines()
        for (offset, text) in [(0.5, "Building for debugging..."), (2.0, "[3/4] Compiling GraderCore A.swift"), (3.0, "[4/4] Linking grader"),
                               (3.1, "Build of product 'grader' complete! (3.10s)"), (3.5, "Concurrency Kata · grading Exercises/")] {
            lines.append(Data((text + "\n").utf8), at: lines.started.addingTimeInterval(offset))
        }
        let timed = LoopBenchWorkspace.Timed(
            seconds: 10, termination: .exited(1),
            timings: PhaseTimings.File(totalSeconds: 6, phases: [.init(name: "running the suites", seconds: 4)]),
            log: URL(fileURLWithPath: "/dev/null"), lines: lines)
        let phases = LoopBenchMeasure.phases(of: timed)
        let expected: [(String, Double)] = [
            ("swift run: building the grader: manifest and planning", 0.5), ("swift run: building the grader: compiling", 1.5),
            ("swift run: building the grader: linking", 1), ("swift run: building the grader: other", 0.1),
            ("swift run: starting the grader", 0.9), ("running the suites", 4), ("the rest (the grader's other steps)", 2),
        ]
        #expect(phases.map(\.name) == expected.map(\.0))
        // Dates keep about a tenth of a microsecond at this epoch.
        for (phase, (_, seconds)) in zip(phases, expected) { #expect(abs(phase.seconds - seconds) < 1e-6, "\(phase.name)") }
        #expect(LoopBenchMeasure.failure(of: timed) == nil, "exit 1 is a grade with exercises not complete")
    }

    static func line(_ seconds: Double, _ text: String, from start: Date) -> TimedLines.Line {
        TimedLines.Line(at: start.addingTimeInterval(seconds), text: text)
    }

    @Test("Watch's screens on a pipe: the points with the race check pending, then the verdict")
    func screens() {
        let start = Date()
        let lines = [
            Self.line(0, "grader watch · graded at 10:00:00 · save a file under Exercises/ to re-grade · h: next hint · q: quit", from: start),
            Self.line(0, " 1  ThreadSafeDictionary   0/14   0/9  in progress ◀", from: start),
            Self.line(3, "grader watch · graded at 10:00:03 · save a file under Exercises/ to re-grade · h: next hint · q: quit", from: start),
            Self.line(3, " 1  ThreadSafeDictionary  12/14   8/9  looking for data races… ◀", from: start),
            Self.line(3, "Every other check of ThreadSafeDictionary passes; ThreadSanitizer is looking for data races (the last check)…", from: start),
            Self.line(9, "grader watch · graded at 10:00:09 · save a file under Exercises/ to re-grade · h: next hint · q: quit", from: start),
            Self.line(9, " 1  ThreadSafeDictionary  14/14   9/9  complete ◀", from: start),
        ]
        let after = WatchScreen.screens(in: lines, after: start.addingTimeInterval(1))
        #expect(after.count == 2, "the screen shown before the save does not count")
        #expect(after.map { $0.status(of: "ThreadSafeDictionary") } == [.points, .raceVerdict("complete")])
        #expect(after[1].at.timeIntervalSince(start) == 9)
    }

    @Test("Watch's screens: a compile error, another status, a row not yet arrived, a grade that could not run")
    func otherScreens() {
        let at = Date()
        #expect(WatchScreen(at: at, lines: [" 1  ThreadSafeDictionary   0/14  does not compile ◀"]).status(of: "ThreadSafeDictionary") == .doesNotCompile)
        #expect(WatchScreen(at: at, lines: [" 1  ThreadSafeDictionary   3/14  in progress"]).status(of: "ThreadSafeDictionary") == .other("in progress"))
        #expect(WatchScreen(at: at, lines: [" 1  ThreadSafeDictionary  11/14  data race"]).status(of: "ThreadSafeDictionary") == .raceVerdict("data race"))
        #expect(WatchScreen(at: at, lines: [""]).status(of: "ThreadSafeDictionary") == nil)
        #expect(WatchScreen(at: at, lines: ["Could not grade ThreadSafeDictionary: x"]).status(of: "ThreadSafeDictionary") == .other("could not grade"))
    }

    static let source = """
    import Dispatch

    /// A type.
    public final class Box<Value: Sendable>: @unchecked Sendable {
        private var value: Value

        public init(_ value: Value) {
            self.value = value
        }

        public func get() -> Value { value }
    }
    """

    @Test("The saves: a statement in the first body, a stored property in the first type, a compile error")
    func saves() throws {
        let body = try #require(SourceEdits.bodyOnly(Self.source, marker: 3))
        #expect(body.contains("    public init(_ value: Value) {\n        _ = 3\n        self.value = value"))
        let interface = try #require(SourceEdits.interface(body, marker: 3))
        #expect(interface.contains("@unchecked Sendable {\n    private let loopBenchMarker3 = 3\n"))
        let error = try #require(SourceEdits.compileError(Self.source))
        #expect(error.contains("let loopBenchError: Int = \"not a number\""))
        #expect(SourceEdits.bodyOnly("// nothing here {\nlet x = 1", marker: 1) == nil)
    }

    static func report() -> LoopBenchReport {
        LoopBenchReport(
            machine: .init(date: "2026-11-27 17:00 UTC", cores: 2, os: "Ubuntu 24.04 (Linux 6.8 x86_64)",
                           toolchain: "Swift version 6.3.1 (swift-6.3.1-RELEASE)", buildSystem: "native", commit: "abc1234",
                           loadBefore: [0.5, 0.25, 0.75], loadAfter: [1, 1, 1]),
            runs: 3,
            rows: [
                .init(id: "solutions-grade", what: "warm grade", samples: [9, 8, 12],
                      phases: [[.init(name: "build: skipped", seconds: 0), .init(name: "running the suites", seconds: 6)],
                               [.init(name: "running the suites", seconds: 5), .init(name: "running the suites", seconds: 1)],
                               [.init(name: "running the suites", seconds: 9), .init(name: "ThreadSanitizer run", seconds: 2)]]),
                .init(id: "none", what: "nothing measured", samples: [], failures: ["ended with timedOut"]),
            ])
    }

    @Test("Medians with the lowest and highest, and each phase's median (a run without it counts 0)")
    func medians() {
        let row = Self.report().rows[0]
        #expect(row.median == 9 && row.lowest == 8 && row.highest == 12)
        #expect(row.phases.map(\.name) == ["build: skipped", "running the suites", "ThreadSanitizer run"])
        #expect(row.phases[1].samples == [6, 6, 9], "a phase that came twice in a run is summed")
        #expect(row.phases[1].median == 6)
        #expect(row.phases[2].median == 0)
        #expect(Self.report().rows[1].median == nil)
    }

    @Test("Markdown names the date, machine, toolchain and load; a row per figure; runs without a figure listed")
    func markdown() {
        let text = Self.report().markdown()
        #expect(text.contains("- date: 2026-11-27 17:00 UTC"))
        #expect(text.contains("2 cores, Ubuntu 24.04 (Linux 6.8 x86_64); Swift version 6.3.1"))
        #expect(text.contains("0.50, 0.25, 0.75 before, 1.00, 1.00, 1.00 after"))
        #expect(text.contains("| warm grade | 9.00 s | 8.00 s–12.0 s | 3 | running the suites 6.00 |"))
        #expect(text.contains("| nothing measured | — | — | 0 | — |"))
        #expect(text.contains("- nothing measured: ended with timedOut"))
    }

    @Test("JSON keeps every sample and summary and reads back the same")
    func json() throws {
        let report = Self.report()
        let data = try report.json()
        #expect(try JSONDecoder().decode(LoopBenchReport.self, from: data) == report)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(rows[0]["median"] as? Double == 9)
        #expect((rows[0]["samples"] as? [Double]) == [9, 8, 12])
    }
}
