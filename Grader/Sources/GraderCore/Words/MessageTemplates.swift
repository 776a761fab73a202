import Foundation

/// The English sentences a suite can say to a learner, read from its Swift sources: every string
/// literal with at least two words, each interpolation `\(…)` replaced by a numbered placeholder
/// (`{1}`, `{2}`, … in order), and the literals inside interpolations as templates of their own
/// (a message's parts: `"… \(empty ? "The stream ended." : "Yield 0, 1, 2.")"`). `@Test` and
/// `@Suite` titles are left out: the rubric translates them.
struct MessageTemplate: Equatable, Sendable {
    /// The literal's text, escapes resolved, with placeholders.
    var text: String
    /// Where it is, for the maintainer: `Tests/XTests/File.swift:12`.
    var place: String
}

enum MessageTemplates {
    /// The folders whose sentences reach a learner, from the checkout's root: every suite, its
    /// model, and the support they share (not the self-tests, which no learner runs); the given
    /// modules and the untouched stubs, whose values the suites' messages quote (a puzzle's title,
    /// a scheduler's verdict, a stub's "not implemented yet"); and the benchmarks, whose
    /// descriptions `grader bench` shows.
    static func folders(layout: KataLayout) -> [String] {
        func children(_ path: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: layout.root.appendingPathComponent(path).path)) ?? []).sorted()
        }
        let tests = children("Tests").filter { name in
            !name.hasSuffix("SelfTests") && name != "KataTestSupportTests"
                && (name.hasSuffix("Tests") || name.hasSuffix("Model") || name == "KataTestSupport")
        }.map { "Tests/\($0)" }
        let given = children("Given").map { "Given/\($0)" }
        let stubs = children("Exercises").map { "Exercises/\($0)" }
        return tests + given + stubs + ["Benchmarks/DictionaryBench"] + children("Benchmarks/Executables").map { "Benchmarks/Executables/\($0)" }
    }

    /// Each folder's templates, in file and source order, each once per folder; folders that say
    /// nothing are left out.
    static func byFolder(layout: KataLayout) -> [(folder: String, templates: [MessageTemplate])] {
        folders(layout: layout).map { folder in
            var seen = Set<String>()
            var templates: [MessageTemplate] = []
            for file in FileTree.relativePaths(under: layout.root.appendingPathComponent(folder), where: { relative, _ in relative.hasSuffix(".swift") }).sorted() {
                guard let text = try? String(contentsOf: layout.root.appendingPathComponent("\(folder)/\(file)"), encoding: .utf8) else { continue }
                for (template, line) in Self.templates(inSwift: text) where seen.insert(template).inserted {
                    templates.append(MessageTemplate(text: template, place: "\(folder)/\(file):\(line)"))
                }
            }
            return (folder, templates)
        }.filter { !$0.templates.isEmpty }
    }

    /// The sentences of one Swift file, with their line numbers.
    static func templates(inSwift source: String) -> [(String, Int)] {
        var lexer = LiteralLexer(Array(source))
        return lexer.literals().filter { isSentence($0.text) && !$0.isTitle }.map { ($0.text, $0.line) }
    }

    /// Two words in a row, outside placeholders: a sentence, not a key, a label or a code.
    /// Also a word beside a value (`returned {1}`, `{1} keys`): an outcome or a count in words.
    static func isSentence(_ template: String) -> Bool {
        let words = placeholderFree(template)
        if words.range(of: "[A-Za-z]{2,}[ ]+[A-Za-z(]", options: .regularExpression) != nil { return true }
        if template.range(of: "^[a-z]{4,} \\.?\\{[0-9]+\\}", options: .regularExpression) != nil { return true }
        return template.range(of: "\\{[0-9]+\\}[ %]+[a-z]{3,}", options: .regularExpression) != nil
    }

    static func placeholderCount(_ template: String) -> Int {
        template.components(separatedBy: "{").dropFirst().filter { $0.range(of: "^[0-9]+\\}", options: .regularExpression) != nil }.count
    }

    static func placeholderFree(_ template: String) -> String {
        template.replacingOccurrences(of: "\\{[0-9]+\\}", with: " ", options: .regularExpression)
    }
}

/// A small Swift lexer for string literals: plain and multi-line (raw ones are read as plain text
/// between their delimiters), comments skipped, interpolations followed to their closing
/// parenthesis with the literals inside them.
private struct LiteralLexer {
    struct Literal {
        var text: String
        var line: Int
        var isTitle: Bool
    }

    let characters: [Character]
    var index = 0
    var line = 1
    var found: [Literal] = []

    init(_ characters: [Character]) { self.characters = characters }

    func starts(_ text: String, at position: Int) -> Bool {
        var at = position
        for character in text {
            guard at < characters.count, characters[at] == character else { return false }
            at += 1
        }
        return true
    }

    mutating func advance() {
        if characters[index] == "\n" { line += 1 }
        index += 1
    }

    mutating func literals() -> [Literal] {
        while index < characters.count { code(untilClosingParenthesis: false) }
        return found
    }

    /// Code, up to the end of the file or (inside an interpolation) the parenthesis that closes it.
    mutating func code(untilClosingParenthesis: Bool) {
        var depth = 0
        while index < characters.count {
            if starts("//", at: index) {
                while index < characters.count, characters[index] != "\n" { advance() }
            } else if starts("/*", at: index) {
                var nesting = 0
                repeat {
                    if starts("/*", at: index) { nesting += 1; advance(); advance(); continue }
                    if starts("*/", at: index) { nesting -= 1; advance(); advance(); continue }
                    advance()
                } while nesting > 0 && index < characters.count
            } else if characters[index] == "\"" || (characters[index] == "#" && rawQuoteFollows()) {
                let title = precededByTitleAttribute()
                let startLine = line
                if let text = literal() { found.append(Literal(text: concatenated(to: text), line: startLine, isTitle: title)) }
            } else if characters[index] == "(" {
                depth += 1
                advance()
            } else if characters[index] == ")" {
                if untilClosingParenthesis && depth == 0 { advance(); return }
                depth -= 1
                advance()
            } else {
                advance()
            }
        }
    }

    /// `text` with the literals joined to it by `+` (a message written over several lines).
    mutating func concatenated(to text: String) -> String {
        var text = text
        while true {
            let (savedIndex, savedLine) = (index, line)
            while index < characters.count, characters[index].isWhitespace { advance() }
            guard index < characters.count, characters[index] == "+" else { (index, line) = (savedIndex, savedLine); return text }
            advance()
            while index < characters.count, characters[index].isWhitespace { advance() }
            guard index < characters.count, characters[index] == "\"", let next = literal() else { (index, line) = (savedIndex, savedLine); return text }
            text += Self.renumbered(next, after: MessageTemplates.placeholderCount(text))
        }
    }

    /// `{1}` → `{n + 1}`, …
    static func renumbered(_ text: String, after count: Int) -> String {
        guard count > 0 else { return text }
        var result = ""
        var rest = Substring(text)
        while let range = rest.range(of: "\\{[0-9]+\\}", options: .regularExpression) {
            result += rest[..<range.lowerBound]
            result += "{\((Int(rest[range].dropFirst().dropLast()) ?? 0) + count)}"
            rest = rest[range.upperBound...]
        }
        return result + rest
    }

    func rawQuoteFollows() -> Bool {
        var at = index
        while at < characters.count, characters[at] == "#" { at += 1 }
        return at < characters.count && characters[at] == "\""
    }

    /// `@Test("…"` or `@Suite("…"`: the literal is a title.
    func precededByTitleAttribute() -> Bool {
        var at = index - 1
        while at >= 0, characters[at].isWhitespace { at -= 1 }
        guard at >= 0, characters[at] == "(" else { return false }
        let before = String(characters[max(0, at - 6)..<at])
        return before.hasSuffix("@Test") || before.hasSuffix("@Suite")
    }

    /// One literal from its opening delimiter: its text with `{n}` for each interpolation.
    mutating func literal() -> String? {
        var hashes = 0
        while characters[index] == "#" { hashes += 1; advance() }
        let multiLine = starts("\"\"\"", at: index)
        for _ in 0..<(multiLine ? 3 : 1) { advance() }
        let closing = String(repeating: "\"", count: multiLine ? 3 : 1) + String(repeating: "#", count: hashes)
        let escape = "\\" + String(repeating: "#", count: hashes)
        var text = ""
        var placeholders = 0
        while index < characters.count {
            if starts(closing, at: index) {
                for _ in 0..<closing.count { advance() }
                return multiLine ? Self.multiLineText(text) : text
            }
            if !multiLine, characters[index] == "\n" { return nil }
            if starts(escape, at: index) {
                for _ in 0..<escape.count { advance() }
                guard index < characters.count else { return nil }
                let character = characters[index]
                advance()
                switch character {
                case "(":
                    placeholders += 1
                    text += "{\(placeholders)}"
                    code(untilClosingParenthesis: true)
                case "n": text += "\n"
                case "t": text += "\t"
                case "0": text += "\0"
                case "r": text += "\r"
                case "u":
                    var hex = ""
                    if index < characters.count, characters[index] == "{" {
                        advance()
                        while index < characters.count, characters[index] != "}" { hex.append(characters[index]); advance() }
                        advance()
                    }
                    if let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) { text.unicodeScalars.append(scalar) }
                case "\n":
                    // A line ending in `\` continues on the next one (multi-line literals).
                    text += "\u{1}\n"
                default: text.append(character)
                }
                continue
            }
            text.append(characters[index])
            advance()
        }
        return nil
    }

    /// A multi-line literal's lines without the closing delimiter's indentation, and without the
    /// line breaks after the opening and before the closing delimiter.
    static func multiLineText(_ raw: String) -> String {
        var lines = raw.components(separatedBy: "\n")
        let indentation = lines.last.map { $0.allSatisfy { $0 == " " || $0 == "\t" } ? $0.count : 0 } ?? 0
        if lines.first?.allSatisfy({ $0 == " " }) == true { lines.removeFirst() }
        if let last = lines.last, last.allSatisfy({ $0 == " " || $0 == "\t" }) { lines.removeLast() }
        let text = lines.map { String($0.dropFirst(min(indentation, $0.prefix { $0 == " " || $0 == "\t" }.count))) }.joined(separator: "\n")
        return text.replacingOccurrences(of: "\u{1}\n", with: "").replacingOccurrences(of: "\u{1}", with: "")
    }
}
