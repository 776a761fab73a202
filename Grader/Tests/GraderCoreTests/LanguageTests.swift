import Foundation
import Testing
@testable import GraderCore

/// The grader speaks English or Simplified Chinese: chosen with `--lang`, else from the
/// environment; machine-readable output is the same in both.
@Suite("Languages")
struct LanguageTests {
    @Test("--lang takes en and zh-Hans (and the usual spellings of Chinese); anything else is an error that lists them")
    func names() throws {
        #expect(try Arguments.parse(["--lang", "zh-Hans"]).language == .simplifiedChinese)
        #expect(try Arguments.parse(["--lang", "zh_CN"]).language == .simplifiedChinese)
        #expect(try Arguments.parse(["--lang", "en"]).language == .english)
        #expect(try Arguments.parse([]).language == nil)
        #expect(throws: GraderError.self) { try Arguments.parse(["--lang", "xx"]) }
        #expect(GraderApp.main(["--lang", "xx"]) == 2, "an unknown language is exit code 2")
    }

    @Test("The environment: LC_ALL before LC_MESSAGES before LANG; zh… is Chinese, anything else English")
    func environment() {
        #expect(Language.fromEnvironment(["LANG": "zh_CN.UTF-8"]) == .simplifiedChinese)
        #expect(Language.fromEnvironment(["LANG": "zh_CN.UTF-8", "LC_ALL": "en_US.UTF-8"]) == .english)
        #expect(Language.fromEnvironment(["LC_ALL": "zh_TW.UTF-8"]) == .simplifiedChinese)
        #expect(Language.fromEnvironment(["LANG": "C.UTF-8"]) == .english)
        #expect(Language.fromEnvironment([:]) == .english)
    }

    @Test("In Chinese: the screen's words and titles change; JSON keys and status keywords do not")
    func chineseScreen() throws {
        try Language.$override.withValue(.simplifiedChinese) { try checkChineseScreen() }
    }

    func checkChineseScreen() throws {
        var exercise = Fixture.exercise
        exercise.zhHans = Rubric.Translation(title: "演示练习", from: exercise.title)
        exercise.checks[1].zhHans = Rubric.Translation(title: "自增一次也不丢", from: "Increments are never lost")
        let result = Scoring.score(exercise, runs: [Fixture.stream], terminations: [.stoppedAfterWork], deadline: 30, seconds: 1)
        let report = GradeReport(mode: BuildMode(), exercises: [result], modifiedFiles: [], date: Date(timeIntervalSince1970: 0))
        let text = TextReport.render(report, screen: Screen(focus: "Demo"), style: .plain)
        #expect(text.contains("练习") && text.contains("进行中"))
        #expect(text.contains("▶ 演示练习（Demo）：进行中"))
        #expect(text.contains("下一步：在 Demo 中让“自增一次也不丢”通过。"))
        let json = try #require(try JSONSerialization.jsonObject(with: JSONReport.encode(report, repetitions: 1)) as? [String: Any])
        let first = try #require((json["exercises"] as? [[String: Any]])?.first)
        #expect(first["status"] as? String == "in_progress", "status keywords stay English")
        #expect(first["title"] as? String == "演示练习", "a title shown to a person is in the chosen language")
    }
}
