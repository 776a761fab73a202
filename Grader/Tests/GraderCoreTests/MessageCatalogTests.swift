import Foundation
import Testing
@testable import GraderCore

/// The suites' messages in Chinese: templates read from the sources, a catalog that translates a
/// message whole with its values kept, and a check that says what to add.
@Suite("Messages in Chinese")
struct MessageCatalogTests {
    static let source = #"""
        @Suite("A suite title")
        struct SomeTests {
            @Test("A check title with words")
            func check() {
                // "A comment is no message"
                #expect(got == 3, "Expected three things, got \(got) from \(name).")
                Issue.record("It \(ok ? "went fine today" : "went wrong today") in the end.")
                let key = "key"
                let long = """
                    First line of \(count) lines,
                      second indented.
                    """
                let joined = "Part one with \(a), "
                    + "part two with \(b)."
                let quoted = "say \"hello there\" now"
                let outcome = "returned \(value)"
            }
        }
        """#

    @Test("Templates: every sentence literal, {n} for each interpolation, nested ones too; titles, comments and keys left out")
    func templates() {
        let found = MessageTemplates.templates(inSwift: Self.source).map(\.0)
        #expect(found.contains("Expected three things, got {1} from {2}."))
        #expect(found.contains("It {1} in the end.") && found.contains("went fine today") && found.contains("went wrong today"))
        #expect(found.contains("First line of {1} lines,\n  second indented."), "a multi-line literal without its indentation")
        #expect(found.contains("Part one with {1}, part two with {2}."), "literals joined with + are one message")
        #expect(found.contains(#"say "hello there" now"#), "escapes resolved")
        #expect(found.contains("returned {1}"), "a word beside a value")
        #expect(!found.contains { $0.contains("title") || $0.contains("comment") || $0 == "key" }, "\(found)")
    }

    static let catalog = MessageCatalog(entries: [
        (folder: "Tests/BoundedBufferTests", pairs: [
            (english: "take() waited {1} ms and {2}, although the element was put {3} ms after the take began",
             chinese: "take() 等了 {1} 毫秒并且{2}，尽管元素在 take 开始后 {3} 毫秒就放入了"),
            (english: "returned {1}", chinese: "返回了 {1}"),
            (english: "Ping-pong went wrong: {1}.", chinese: "来回传递出错：{1}。"),
            (english: "a label with two words", chinese: MessageCatalog.keptAsIs),
            (english: "At tick {1}, the lock was {2}, but {3}.", chinese: "在第 {1} 个时钟周期，锁是 {2}，但 {3}。"),
            (english: "{1} holds no lock", chinese: "{1} 没有持有锁"),
            (english: " Also wrong then: {1}.", chinese: " 那时错的还有：{1}。"),
            (english: "{1} at {2} instead of {3}", chinese: "{1} 的优先级是 {2}，而不是 {3}"),
        ]),
    ])

    @Test("A message matched whole comes out in Chinese with its values; a value that is a sentence is translated too")
    func translate() {
        let message = "take() waited 503 ms and returned 59, although the element was put 2 ms after the take began"
        #expect(Self.catalog.translate(message) == "take() 等了 503 毫秒并且返回了 59，尽管元素在 take 开始后 2 毫秒就放入了")
        #expect(Self.catalog.translate("Ping-pong went wrong: a: b; c.") == "来回传递出错：a: b; c。", "a value keeps its punctuation")
        #expect(Self.catalog.translate("Ping-pong went wrong: x. Ping-pong went wrong: y.") == "来回传递出错：x。来回传递出错：y。",
                "sentences a helper joined, each translated")
        #expect(Self.catalog.translate("At tick 3, the lock was free, but Meteo holds no lock. Also wrong then: Bus at 0 instead of 9.")
                == "在第 3 个时钟周期，锁是 free，但 Meteo 没有持有锁。那时错的还有：Bus 的优先级是 0，而不是 9。",
                "a part joined with its leading space; the reading that leaves the least English wins")
        #expect(Self.catalog.translate(" Also wrong then: Bus at 0 instead of 9, Meteo at 1 instead of 2 and Comms at 0 instead of 5.")
                == "那时错的还有：Bus 的优先级是 0，而不是 9、Meteo 的优先级是 1，而不是 2 和 Comms 的优先级是 0，而不是 5。",
                "a list joined in English, each item translated; no space before Chinese")
        #expect(Self.catalog.translate("Something no suite says.") == "Something no suite says.", "unknown: English")
        #expect(Self.catalog.translate("Ping-pong went wrong: x. Something no suite says.") == "Ping-pong went wrong: x. Something no suite says.",
                "all or nothing: no half-translated message")
        #expect(Self.catalog.translate("a label with two words") == "a label with two words", "= keeps it as it is")
        #expect(Self.catalog.translate("Expectation failed: (x → 1) == 2") == "期望不成立：(x → 1) == 2", "Swift Testing's own words")
    }

    @Test("In Chinese, an issue's parts are translated as the event stream reads them; in English they are untouched")
    func eventStream() {
        let payload: [String: Any] = ["messages": [["text": "Issue recorded"], ["text": "returned 7"]]]
        MessageCatalog.$override.withValue(Self.catalog) {
            Language.$override.withValue(.simplifiedChinese) {
                #expect(EventStream.issueReport(payload).message == "返回了 7")
            }
            Language.$override.withValue(.english) {
                #expect(EventStream.issueReport(payload).message == "returned 7")
            }
        }
    }

    @Test("The check: a message without Chinese says what to add, where; a stale entry and a lost placeholder are named")
    func problems() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kata-messages-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let suite = root.appendingPathComponent("Tests/DemoTests/DemoTests.swift")
        try FileManager.default.createDirectory(at: suite.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(#"""
            #expect(a == b, "Two values differ: \(a) and \(b).")
            #expect(c, "A new message here.")
            """#.utf8).write(to: suite)
        let catalog = MessageCatalog(entries: [(folder: "Tests/DemoTests", pairs: [
            (english: "Two values differ: {1} and {2}.", chinese: "两个值不同：{1}。"),
            (english: "An old message here.", chinese: "一条旧消息。"),
        ])])
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Grader"), withIntermediateDirectories: true)
        try Data(catalog.fileText().utf8).write(to: root.appendingPathComponent(MessageCatalog.path))
        let check = TranslationCheck(layout: KataLayout(root: root), rubric: Rubric(exercises: []))
        let problems = check.messageProblems()
        #expect(problems.count == 3, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("Tests/DemoTests/DemoTests.swift:2: no Chinese") && $0.contains(#""A new message here.": "<the Chinese"#) && $0.contains(#"under "Tests/DemoTests""#) })
        #expect(problems.contains { $0.contains(#""An old message here." is no longer said by Tests/DemoTests"#) })
        #expect(problems.contains { $0.contains("placeholders") && $0.contains("Two values differ") })
        let completed = check.catalogWithEveryMessage()
        #expect(completed.entries.map { $0.pairs.map(\.english) } == [["Two values differ: {1} and {2}.", "A new message here."]], "added in source order, the stale one gone")
        let reread = try MessageCatalog.load(from: root.appendingPathComponent(MessageCatalog.path))
        #expect(reread.entries.map { $0.pairs.map(\.english) } == catalog.entries.map { $0.pairs.map(\.english) }, "the file keeps its order")
    }

    @Test("The course's catalog has a Chinese template for every message of every suite, and nothing stale")
    func courseCatalogIsComplete() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardizedFileURL
        let layout = KataLayout(root: root)
        let problems = TranslationCheck(layout: layout, rubric: try Rubric.load(from: layout.rubricFile)).messageProblems()
        #expect(problems.isEmpty, "\(problems.prefix(3).joined(separator: "\n")) (swift run grader translations)")
    }
}
