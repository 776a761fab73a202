import Foundation
import Testing
@testable import GraderCore

/// The Chinese twin of a document must keep its structure, its code and its links, and say which
/// English text it was made from; a check's Chinese title, which English title.
@Suite("Translations kept in step")
struct TranslationCheckTests {
    static let english = """
        # Title

        Some prose with a [link](Exercises/A/README.md).

        ```swift
        let x = 1 // one
        // a note
        print(x)
        ```

        ## Section
        """

    static let chinese = """
        # 标题

        一段文字，带一个[链接](Exercises/A/README.zh-Hans.md)。

        ```swift
        let x = 1 // 一
        // 说明
        print(x)
        ```

        ## 小节
        """

    @Test("Same headings, code without comments, and links (a twin's link counts as its original's)")
    func outline() {
        let (a, b) = (MarkdownOutline(Self.english), MarkdownOutline(Self.chinese))
        #expect(a.headingLevels == [1, 2] && a.headingLevels == b.headingLevels)
        #expect(a.code == b.code, "comments may be translated")
        #expect(a.links == b.links)
        let changedCode = Self.chinese.replacingOccurrences(of: "print(x)", with: "print(y)")
        #expect(MarkdownOutline(changedCode).code != a.code, "code may not change")
        let missingHeading = Self.chinese.replacingOccurrences(of: "## 小节", with: "小节")
        #expect(MarkdownOutline(missingHeading).headingLevels != a.headingLevels)
    }

    @Test("A twin is stale until stamped with the English blob it was made from; missing is a problem")
    func stamps() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kata-zh-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let check = TranslationCheck(layout: KataLayout(root: root), rubric: Rubric(exercises: []))
        try Data(Self.english.utf8).write(to: root.appendingPathComponent("README.md"))
        #expect(check.problems(english: "README.md").first?.contains("is missing") == true)
        let blob = SHA1.gitBlobID(Data(Self.english.utf8))
        try Data((TranslationCheck.stamp(for: "README.md", blob: blob) + "\n" + Self.chinese).utf8).write(to: root.appendingPathComponent("README.zh-Hans.md"))
        #expect(check.problems(english: "README.md").isEmpty)
        try Data((Self.english + "\nA new sentence.\n").utf8).write(to: root.appendingPathComponent("README.md"))
        #expect(check.problems(english: "README.md").contains { $0.contains("was not made from README.md as it is now") })
    }

    @Test("A check's Chinese title is stale when its English @Test title changed")
    func titles() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kata-zh-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let suite = root.appendingPathComponent("Tests/DemoTests/A.swift")
        try FileManager.default.createDirectory(at: suite.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("@Test(\"Counts every increment\")\nfunc counts() {}\n".utf8).write(to: suite)
        var check = Rubric.Check(test: "counts", points: 1)
        check.zhHans = Rubric.Translation(title: "每次自增都算数", from: "Counts every increment")
        var exercise = Rubric.Exercise(name: "Demo", title: "Demo", checks: [check])
        exercise.zhHans = Rubric.Translation(title: "演示", from: "Demo")
        let rubric = Rubric(exercises: [exercise])
        #expect(TranslationCheck(layout: KataLayout(root: root), rubric: rubric).titleProblems().isEmpty)
        try Data("@Test(\"Counts every increment from 8 threads\")\nfunc counts() {}\n".utf8).write(to: suite)
        #expect(TranslationCheck(layout: KataLayout(root: root), rubric: rubric).titleProblems().first?.contains("is now \"Counts every increment from 8 threads\"") == true)
    }
}
