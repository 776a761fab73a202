import Foundation
import Testing
@testable import GraderCore

/// The learner's screen: one line per exercise, the course's progress, and the detail only for
/// the exercise in focus; messages keep their indentation; `list` stays aligned.
@Suite("The learner's screen")
struct ScreenTests {
    /// A result of `name`: complete, or in progress with `message` on its first failing check.
    static func result(_ name: String, complete: Bool, message: String = "It failed.") -> ExerciseResult {
        var checks = [CheckResult(test: "a", title: "First check", points: 2, earned: 2, passed: true)]
        checks.append(complete
            ? CheckResult(test: "b", title: "Second check", points: 3, earned: 3, passed: true)
            : CheckResult(test: "b", title: "Second check", points: 3, earned: 0, passed: false, message: message))
        return ExerciseResult(name: name, title: "The \(name) exercise", status: complete ? .complete : .inProgress(firstFailing: "Second check"),
                              checks: checks, runs: 1, seconds: 1)
    }

    static let report = GradeReport(
        mode: BuildMode(),
        exercises: [result("Alpha", complete: true), result("Beta", complete: false, message: "Beta's message."),
                    result("Gamma", complete: false, message: "Gamma's message:\n\n    queue.sync {\n        print(1)\n    }")],
        modifiedFiles: [], date: Date(timeIntervalSince1970: 0))

    @Test("Only the exercise in focus shows its detail; --verbose shows every one")
    func focusOnly() {
        let screen = Screen(focus: "Gamma", numbers: ["Alpha": 1, "Beta": 2, "Gamma": 3])
        let text = TextReport.render(Self.report, screen: screen, style: .plain)
        #expect(text.contains("Gamma's message"))
        #expect(!text.contains("Beta's message"), "an exercise out of focus is one line")
        #expect(text.contains("▶ 3. The Gamma exercise (Gamma): in progress"))
        #expect(text.contains("Next: in Gamma, make \"Second check\" pass."))
        var verbose = screen
        verbose.verbose = true
        let all = TextReport.render(Self.report, screen: verbose, style: .plain)
        #expect(all.contains("Beta's message") && all.contains("Gamma's message"))
    }

    @Test("Every failing check of the exercise in focus, one line each, the first with its whole message; not the race check")
    func everyFailingCheck() {
        let checks = [
            CheckResult(test: "a", title: "First check", points: 2, earned: 2, passed: true),
            CheckResult(test: "b", title: "Second check", points: 3, earned: 0, passed: false, message: "Second's message,\non two lines."),
            CheckResult(test: "c", title: "Third check", points: 3, earned: 0, passed: false, message: "Third's message."),
            CheckResult(test: "d", title: "Fourth check", points: 3, earned: 0, passed: false, message: "Fourth's message."),
            CheckResult(test: Rubric.raceCheckTest, title: Rubric.raceCheckTitle, points: 1, earned: 0, passed: false, message: "Not checked."),
        ]
        let exercise = ExerciseResult(name: "Delta", title: "The Delta exercise", status: .inProgress(firstFailing: "Second check"),
                                      checks: checks, runs: 1, seconds: 1)
        let report = GradeReport(mode: BuildMode(), exercises: [exercise], modifiedFiles: [], date: Date(timeIntervalSince1970: 0))
        let lines = TextReport.render(report, screen: Screen(focus: "Delta"), style: .plain).components(separatedBy: "\n")
        let failing = lines.filter { $0.contains("✘") }
        #expect(failing == ["  ✘ Second check", "  ✘ Third check", "  ✘ Fourth check"], "\(lines)")
        #expect(lines.contains("    Second's message,") && lines.contains("    on two lines."), "the first with its whole message")
        #expect(!lines.contains { $0.contains("Third's message") || $0.contains("Fourth's message") }, "the others one line each")
        #expect(!lines.contains { $0.contains(Rubric.raceCheckTitle) }, "the race check runs only once the others pass")
    }

    @Test("A message keeps its own indentation inside the table, code included")
    func indentationKept() {
        let text = TextReport.render(Self.report, screen: Screen(focus: "Gamma"), style: .plain)
        let lines = text.components(separatedBy: "\n")
        let code = lines.first { $0.contains("queue.sync {") }
        let body = lines.first { $0.contains("print(1)") }
        #expect(code?.hasPrefix("        queue.sync {") == true, "the code's first line sits inside the detail's indentation")
        #expect(body?.hasPrefix("            print(1)") == true, "and its own indentation is kept on top")
    }

    @Test("Wrapped to the terminal's width there, with the line's indentation; not at all on a pipe")
    func wrapping() {
        let long = "    " + Array(repeating: "word", count: 30).joined(separator: " ")
        let wrapped = TextLayout.indented(long, prefix: "  ", width: 40)
        #expect(wrapped.count > 1)
        #expect(wrapped.allSatisfy { $0.hasPrefix("      word") && TextLayout.width($0) <= 40 })
        #expect(TextLayout.indented(long, prefix: "  ", width: nil) == ["  " + long])
        let next = TextLayout.hanging("Next: " + Array(repeating: "word", count: 30).joined(separator: " "), "      ", width: 40)
        #expect(next.count > 1 && next.dropFirst().allSatisfy { $0.hasPrefix("      word") && TextLayout.width($0) <= 40 },
                "a Next line's continuation lines up under its text")
    }

    @Test("Chinese text wraps between characters, never before a closing mark; a line's own indentation stays")
    func chineseWrapping() {
        let text = "  ✘ 4 个生产者和 4 个消费者：每个元素恰好到达一次，保持各生产者的顺序，缓冲区里从不超过 capacity 个。"
        let lines = TextLayout.hanging(text, "    ", width: 30)
        #expect(lines.count > 2)
        #expect(lines.allSatisfy { TextLayout.width($0) <= 30 }, "\(lines)")
        #expect(lines[0].hasPrefix("  ✘ 4 个"))
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("    ") && !"，。：；、）".contains($0.dropFirst(4).first ?? " ") }, "\(lines)")
        #expect(lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined().replacingOccurrences(of: " ", with: "")
                == text.replacingOccurrences(of: " ", with: ""), "nothing lost")
    }

    @Test("East Asian characters take two columns, colour codes none")
    func widths() {
        #expect(TextLayout.width("线程安全") == 8)
        #expect(TextLayout.width("\u{1B}[32mok\u{1B}[0m") == 2)
        #expect(TextLayout.pad("死锁", to: 6) == "死锁  ")
    }

    @Test("The focus: the exercise named, else the most recently changed one started and not complete, else the first not complete")
    func focusChoice() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kata-focus-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let layout = KataLayout(root: root)
        for name in ["Alpha", "Beta", "Gamma"] {
            let file = root.appendingPathComponent("Exercises/\(name)/\(name).swift")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("// stub\n".utf8).write(to: file)
        }
        var manifest = IntegrityManifest(protected: [:], stubs: [:], solutions: [:])
        for name in ["Alpha", "Beta", "Gamma"] { manifest.stubs["Exercises/\(name)/\(name).swift"] = SHA1.gitBlobID(Data("// stub\n".utf8)) }
        #expect(Focus.choose(Self.report, named: [], layout: layout, manifest: manifest) == "Beta", "nothing started: the first not complete")
        try Data("// started\n".utf8).write(to: root.appendingPathComponent("Exercises/Gamma/Gamma.swift"))
        #expect(Focus.choose(Self.report, named: [], layout: layout, manifest: manifest) == "Gamma", "the one the learner works on")
        #expect(Focus.choose(Self.report, named: ["beta"], layout: layout, manifest: manifest) == "Beta", "named on the command line")
    }

    @Test("list: whole titles, aligned for any number of exercises, earned of total points")
    func list() throws {
        let exercises = (1...12).map { number in
            Rubric.Exercise(name: "Exercise\(number)", title: number == 6 ? "A very long title: lock ordering, re-entry, sync onto your own queue" : "Title \(number)",
                            checks: [.init(test: "a", points: 5)])
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kata-list-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        var history = History(file: file)
        let done = ExerciseResult(name: "Exercise10", title: "Title 10", status: .complete,
                                  checks: [CheckResult(test: "a", title: "a", points: 5, earned: 5, passed: true)], runs: 1, seconds: 1)
        try history.record([done], solutions: false)
        let text = ListCommand.render(rubric: Rubric(exercises: exercises), history: history, style: .plain)
        let rows = text.components(separatedBy: "\n").filter { $0.contains("Exercise") && !$0.contains("#") }
        #expect(rows.count == 12)
        #expect(Set(rows.map { $0.range(of: "/5")!.lowerBound.utf16Offset(in: $0) }).count == 1, "the points column lines up")
        #expect(text.contains("A very long title: lock ordering, re-entry, sync onto your own queue"), "titles are whole")
        #expect(text.contains("   5/5  complete"))
        #expect(text.contains("Course: 1 of 12 exercises complete · 5/60 points"))
    }

    @Test("Markdown: the table first, what is left folded in a details block")
    func markdownDetails() {
        let text = MarkdownReport.render(Self.report)
        #expect(text.contains("| The Beta exercise | 2/5 | 1/2 | in progress |"))
        #expect(text.contains("<details><summary>What is left (2 exercises)</summary>"))
        #expect(text.contains("</details>"))
    }
}
