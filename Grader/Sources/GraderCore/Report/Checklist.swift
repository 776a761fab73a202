import Foundation

/// CHECKLIST.md: every graded check, by exercise, generated from the rubric (order, points) and
/// the suites' `@Test("…")` titles. `grader checklist --write` writes it; `grader verify` fails
/// when the file and the generated text differ.
public enum Checklist {
    /// `@Test("title") … func name(` pairs found in an exercise's suite sources: name → title.
    public static func titles(layout: KataLayout, exercise: String) -> [String: String] {
        var titles: [String: String] = [:]
        for path in IntegrityManifest.files(under: "Tests/\(exercise)Tests", layout: layout) where path.hasSuffix(".swift") {
            guard let source = try? String(contentsOf: layout.root.appendingPathComponent(path), encoding: .utf8) else { continue }
            titles.merge(parseTitles(source)) { first, _ in first }
        }
        return titles
    }

    static func parseTitles(_ source: String) -> [String: String] {
        var titles: [String: String] = [:]
        var pending: String?
        for rawLine in source.split(separator: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("@Test") {
                pending = firstStringLiteral(in: line) ?? ""
            }
            if let title = pending, let range = line.range(of: "func ") {
                let name = line[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                titles[String(name)] = title.isEmpty ? String(name) : title
                pending = nil
            }
        }
        return titles
    }

    static func firstStringLiteral(in line: String) -> String? {
        guard let open = line.firstIndex(of: "\"") else { return nil }
        var result = ""
        var escaped = false
        for character in line[line.index(after: open)...] {
            if escaped { result.append(character); escaped = false; continue }
            if character == "\\" { escaped = true; continue }
            if character == "\"" { return result }
            result.append(character)
        }
        return nil
    }

    /// The checklist in `language`: check titles from the rubric's translations where the
    /// language is not English.
    public static func render(rubric: Rubric, layout: KataLayout, language: Language = .english) -> String {
        Language.$override.withValue(language) { render(rubric: rubric, layout: layout, chinese: language == .simplifiedChinese) }
    }

    static func render(rubric: Rubric, layout: KataLayout, chinese: Bool) -> String {
        var text = chinese ? """
        [English](CHECKLIST.md)

        # 检查清单

        Concurrency Kata 的每一项评分检查，按练习分组、按评分程序运行的顺序排列，附上分数和对应的测试函数。
        由 `swift run grader checklist --write` 根据 `Grader/rubric.json` 和测试套件生成；这个文件过期时，
        `swift run grader verify` 会失败。总分：\(rubric.totalPoints) 分。

        标有“需与 … 一起”的检查，只有在它列出的检查也通过时才得分：它检查的性质（比如两个读者同时进入），
        没有同步的代码也可能碰巧具备，只有和它所依赖的安全性一起才有意义。每个练习的最后一项是数据竞争检查，
        由评分程序自己运行：其他检查全部通过后，它在 ThreadSanitizer 下再运行一遍这个练习的测试套件，
        练习代码里没有报告数据竞争才算通过。所有检查（包括数据竞争检查）都通过，练习才算“已完成”。

        """ : """
        [简体中文](CHECKLIST.zh-Hans.md)

        # Checklist

        Every graded check of Concurrency Kata, by exercise, in the order the grader runs them, with
        its points and the test function that grades it. Generated from `Grader/rubric.json` and the
        suites by `swift run grader checklist --write`; `swift run grader verify` fails when this file
        is out of date. Total: \(rubric.totalPoints) points.

        A check marked "only with" earns its points only when the checks it names pass too: it
        checks a property that code without synchronization can have by accident (two readers
        overlapping), which is worth something only together with the safety it presumes. The last
        check of every exercise is the race check, which the grader runs itself: once every other
        check passes, it runs the exercise's suite under ThreadSanitizer, and the check passes when
        no data race is reported in the exercise's code. An exercise is "complete" when every
        check passes, the race check included.

        """
        for (number, exercise) in rubric.exercises.enumerated() {
            let titles = titles(layout: layout, exercise: exercise.name)
            text += chinese
                ? "\n## \(number + 1). \(exercise.localizedTitle)（`\(exercise.name)`，\(exercise.totalPoints) 分）\n\n"
                : "\n## \(number + 1). \(exercise.title) (`\(exercise.name)`, \(exercise.totalPoints) points)\n\n"
            text += chinese
                ? "测试套件：`Tests/\(exercise.name)Tests/`；用 `swift test --filter \(exercise.name)Tests` 运行。\n\n"
                : "Suite: `Tests/\(exercise.name)Tests/`; run it with `swift test --filter \(exercise.name)Tests`.\n\n"
            if let note = exercise.localizedPlatformNote { text += (chinese ? "仅在 Apple 平台上：" : "Only on Apple platforms: ") + note + "\n\n" }
            text += chinese ? "| # | 检查 | 分数 | 测试 |\n|---|---|---|---|\n" : "| # | Check | Points | Test |\n|---|---|---|---|\n"
            for (index, check) in exercise.checks.enumerated() {
                if check.isRaceCheck {
                    text += "| \(index + 1) | \(Rubric.raceCheckTitle)" + (chinese ? "（其他检查全部通过后由评分程序运行）" : " (run by the grader once every other check passes)") + " | \(check.points) | ThreadSanitizer |\n"
                    continue
                }
                let english = titles[check.test] ?? "(no @Test named \(check.test) found)"
                var title = (chinese ? check.zhHans?.title ?? english : english).replacingOccurrences(of: "|", with: "\\|")
                if let required = check.requires, !required.isEmpty {
                    let numbers = required.compactMap { name in exercise.checks.firstIndex { $0.test == name }.map { "#\($0 + 1)" } }
                    title += chinese ? "（需与 \(numbers.joined(separator: "、")) 一起）" : " (only with \(numbers.joined(separator: ", ")))"
                }
                text += "| \(index + 1) | \(title) | \(check.points) | `\(check.test)()` |\n"
            }
        }
        return text
    }
}
