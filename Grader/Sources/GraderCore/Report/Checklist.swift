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

    public static func render(rubric: Rubric, layout: KataLayout) -> String {
        var text = """
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
            text += "\n## \(number + 1). \(exercise.title) (`\(exercise.name)`, \(exercise.totalPoints) points)\n\n"
            text += "Suite: `Tests/\(exercise.name)Tests/`; run it with `swift test --filter \(exercise.name)Tests`.\n\n"
            if let note = exercise.platformNote { text += "Only on Apple platforms: \(note)\n\n" }
            text += "| # | Check | Points | Test |\n|---|---|---|---|\n"
            for (index, check) in exercise.checks.enumerated() {
                if check.isRaceCheck {
                    text += "| \(index + 1) | \(Rubric.raceCheckTitle) (run by the grader once every other check passes) | \(check.points) | ThreadSanitizer |\n"
                    continue
                }
                var title = (titles[check.test] ?? "(no @Test named \(check.test) found)").replacingOccurrences(of: "|", with: "\\|")
                if let required = check.requires, !required.isEmpty {
                    let numbers = required.compactMap { name in exercise.checks.firstIndex { $0.test == name }.map { "#\($0 + 1)" } }
                    title += " (only with \(numbers.joined(separator: ", ")))"
                }
                text += "| \(index + 1) | \(title) | \(check.points) | `\(check.test)()` |\n"
            }
        }
        return text
    }
}
