import Foundation

/// The suites' failure messages in Simplified Chinese. The suites say their messages in English;
/// `Grader/messages.zh-Hans.json` maps each message's template (its literal with `{1}`, `{2}`, …
/// where the source interpolates a value; see `MessageTemplates`) to a Chinese template with the
/// same placeholders, under the folder that says it. A message is shown translated when a
/// template matches it whole: the values it carries are kept as they are, and a value that is
/// itself a sentence of the catalog (a part a helper was given, `Outcome`'s "returned 59") is
/// translated in turn. A message no template matches stays English.
public struct MessageCatalog: Sendable {
    /// Folder (`ThreadSafeDictionaryTests`) → English template → Chinese template.
    public var entries: [(folder: String, pairs: [(english: String, chinese: String)])]
    private var compiled: [CompiledTemplate] = []

    /// The file, from the checkout's root.
    static let path = "Grader/messages.zh-Hans.json"
    /// A Chinese value that says "keep the English": the literal is not a sentence for a learner
    /// (test data, a name), though it has two words.
    static let keptAsIs = "="

    public init(entries: [(folder: String, pairs: [(english: String, chinese: String)])]) {
        self.entries = entries
        var templates: [CompiledTemplate] = Self.swiftTestingTemplates.map { CompiledTemplate($0.0, $0.1) }
        for folder in entries {
            for pair in folder.pairs where !pair.chinese.isEmpty {
                // Matched without their surrounding spaces, which `render` keeps from the message.
                let chinese = pair.chinese == Self.keptAsIs ? pair.chinese : pair.chinese.trimmingCharacters(in: .whitespacesAndNewlines)
                templates.append(CompiledTemplate(pair.english.trimmingCharacters(in: .whitespacesAndNewlines), chinese))
            }
        }
        // The most specific first: more literal text wins over a template that matches by its
        // placeholders ("{1} and {2}").
        compiled = templates.sorted { $0.literalLength > $1.literalLength }
    }

    /// Swift Testing's own words before an issue's details, as its event stream says them
    /// ("Expectation failed: (x → 1) == 2", "Time limit was exceeded: 60.000 seconds").
    static let swiftTestingTemplates: [(String, String)] = [
        ("Expectation failed: {1}", "期望不成立：{1}"),
        ("Caught error: {1}", "捕获到错误：{1}"),
        ("Time limit was exceeded: {1}", "超出了时间限制：{1}"),
    ]

    // MARK: The catalog of this run

    nonisolated(unsafe) private static var process: MessageCatalog?
    /// A catalog for one task (the grader's tests).
    @TaskLocal static var override: MessageCatalog?
    static var current: MessageCatalog? { override ?? process }

    /// Loads the checkout's catalog for this run when the grader speaks Chinese. Call once, before
    /// anything runs concurrently. A catalog that cannot be read leaves the messages in English.
    public static func useForThisRun(layout: KataLayout) {
        guard Language.current == .simplifiedChinese else { return }
        process = try? load(from: layout.root.appendingPathComponent(path))
    }

    /// A suite's message as the learner reads it in the current language.
    static func shown(_ message: String) -> String {
        guard Language.current == .simplifiedChinese, let catalog = current else { return message }
        return catalog.translate(message)
    }

    // MARK: Translating

    /// `message` in Chinese if templates match it whole, values kept (and translated when they
    /// are sentences of the catalog themselves); else `message`.
    public func translate(_ message: String) -> String {
        render(message, depth: 0)?.text ?? message
    }

    /// A translation, and how much English it leaves (letters of the values it could not translate).
    private struct Rendering {
        var text: String
        var english: Int
    }

    /// The translation that leaves the least English: one template matching the whole text, or a
    /// first sentence that a template matches whole followed by the rest rendered the same way
    /// (sentences a helper joined: a deadline's report, then its hint). Surrounding spaces are kept
    /// (a part that was joined to another: " Also wrong then: …").
    private func render(_ text: String, depth: Int) -> Rendering? {
        let core = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard depth < 4, !core.isEmpty, let range = text.range(of: core) else { return nil }
        var best = renderWhole(core, depth: depth)
        var boundary = core.endIndex
        while let stop = core.range(of: ". ", options: .backwards, range: core.startIndex..<boundary) {
            if let first = renderWhole(String(core[...stop.lowerBound]), depth: depth),
               let rest = render(String(core[stop.upperBound...]), depth: depth),
               first.english + rest.english < best?.english ?? Int.max {
                best = Rendering(text: first.text + rest.text, english: first.english + rest.english)
            }
            boundary = stop.lowerBound
        }
        if let list = renderList(core, depth: depth), list.english < best?.english ?? Int.max { best = list }
        // The spaces around are kept where the translation begins or ends in Latin text, not next
        // to Chinese, which needs none (" with other outcomes" → "，而且结果不同").
        return best.map { rendering in
            let before = rendering.text.first?.isASCII == true ? String(text[..<range.lowerBound]) : ""
            let after = rendering.text.last?.isASCII == true ? String(text[range.upperBound...]) : ""
            return Rendering(text: before + rendering.text + after, english: rendering.english)
        }
    }

    /// "A, B and C" (a list a suite joined in English), each item a sentence of the catalog:
    /// "A、B 和 C".
    private func renderList(_ text: String, depth: Int) -> Rendering? {
        guard let and = text.range(of: " and ", options: .backwards) else { return nil }
        let items = text[..<and.lowerBound].components(separatedBy: ", ") + [String(text[and.upperBound...])]
        let rendered = items.compactMap { renderWhole($0, depth: depth + 1) }
        guard rendered.count == items.count, let last = rendered.last else { return nil }
        return Rendering(text: rendered.dropLast().map(\.text).joined(separator: "、") + " 和 " + last.text,
                         english: rendered.reduce(0) { $0 + $1.english })
    }

    private func renderWhole(_ text: String, depth: Int) -> Rendering? {
        var best: Rendering?
        for template in compiled {
            guard let values = template.match(text) else { continue }
            if template.chinese == Self.keptAsIs { return Rendering(text: text, english: 0) }
            let shown = values.map { render($0, depth: depth + 1) }
            // A value that holds an English sentence the catalog cannot translate means the template
            // matched too much ("{1}." swallowing a sentence joined after it): not this one.
            if zip(values, shown).contains(where: { $1 == nil && Self.holdsSentenceBoundary($0) }) { continue }
            let english = zip(values, shown).reduce(0) { $0 + ($1.1?.english ?? Self.englishLetters($1.0)) }
            guard english < best?.english ?? Int.max else { continue }
            var result = template.chinese
            for (number, value) in values.enumerated().reversed() {
                result = result.replacingOccurrences(of: "{\(number + 1)}", with: shown[number]?.text ?? value)
            }
            best = Rendering(text: result, english: english)
            if english == 0 { break }
        }
        return best
    }

    /// Letters of English words (two letters or more) in a value left as it is.
    static func englishLetters(_ value: String) -> Int {
        value.split { !($0.isASCII && $0.isLetter) }.filter { $0.count >= 2 }.reduce(0) { $0 + $1.count }
    }

    /// ". T": where one sentence ends and another begins.
    static func holdsSentenceBoundary(_ value: String) -> Bool {
        value.range(of: "[.!?] [A-Z][a-z]", options: .regularExpression) != nil
    }

    // MARK: The file

    /// Reads the catalog: `{ "Folder": { "English template": "Chinese template", … }, … }`, kept in
    /// the file's order.
    public static func load(from url: URL) throws -> MessageCatalog {
        let data = try Data(contentsOf: url)
        return MessageCatalog(entries: try OrderedJSON.twoLevelStringObject(data))
    }

    /// The catalog as the file holds it: folders and messages in order, one message a line.
    public func fileText() -> String {
        func quoted(_ text: String) -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            return String(decoding: (try? encoder.encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
        }
        var lines = ["{"]
        for (index, folder) in entries.enumerated() {
            lines.append("  \(quoted(folder.folder)): {")
            for (number, pair) in folder.pairs.enumerated() {
                lines.append("    \(quoted(pair.english)):")
                lines.append("      \(quoted(pair.chinese))" + (number == folder.pairs.count - 1 ? "" : ","))
            }
            lines.append("  }" + (index == entries.count - 1 ? "" : ","))
        }
        return (lines + ["}"]).joined(separator: "\n") + "\n"
    }
}

/// One template, cut at its placeholders, for matching a message whole.
private struct CompiledTemplate: Sendable {
    var chunks: [String]
    var chinese: String
    var literalLength: Int

    init(_ english: String, _ chinese: String) {
        var chunks: [String] = []
        var rest = Substring(english)
        while let range = rest.range(of: "\\{[0-9]+\\}", options: .regularExpression) {
            chunks.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        chunks.append(String(rest))
        self.chunks = chunks
        self.chinese = chinese
        literalLength = chunks.reduce(0) { $0 + $1.count }
    }

    /// The values in `text` where the template has placeholders, or nil when it does not match.
    func match(_ text: String) -> [String]? {
        guard let first = chunks.first, let last = chunks.last else { return nil }
        if chunks.count == 1 { return text == first ? [] : nil }
        guard text.hasPrefix(first), text.hasSuffix(last), text.count >= first.count + last.count else { return nil }
        let start = text.index(text.startIndex, offsetBy: first.count)
        let end = text.index(text.endIndex, offsetBy: -last.count)
        return values(in: text, from: start, to: end, chunk: 1)
    }

    /// The values from `from`, where chunk `chunk` (one of the middle ones) comes next; tries each
    /// place the chunk occurs, so that a value may contain the chunk's text.
    private func values(in text: String, from: String.Index, to end: String.Index, chunk: Int) -> [String]? {
        if chunk == chunks.count - 1 { return [String(text[from..<end])] }
        let needle = chunks[chunk]
        if needle.isEmpty { return values(in: text, from: from, to: end, chunk: chunk + 1).map { [""] + $0 } }
        var searchFrom = from
        while searchFrom <= end, let found = text.range(of: needle, range: searchFrom..<end) {
            if let rest = values(in: text, from: found.upperBound, to: end, chunk: chunk + 1) {
                return [String(text[from..<found.lowerBound])] + rest
            }
            guard found.lowerBound < end else { break }
            searchFrom = text.index(after: found.lowerBound)
        }
        return nil
    }
}

/// Reads a JSON object of objects of strings keeping the order of keys (JSONSerialization forgets
/// it): the catalog's order is the sources' order, so that a maintainer finds an entry by its place.
enum OrderedJSON {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    static func twoLevelStringObject(_ data: Data) throws -> [(folder: String, pairs: [(english: String, chinese: String)])] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: [String: String]] else {
            throw Malformed(description: "\(MessageCatalog.path) must be an object of objects of strings")
        }
        // The order: find each key in the text, in turn.
        let text = String(decoding: data, as: UTF8.self)
        var position = text.startIndex
        func nextKey(_ key: String) -> String.Index {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            let quoted = String(decoding: (try? encoder.encode(key)) ?? Data(), as: UTF8.self)
            return text.range(of: quoted, range: position..<text.endIndex)?.lowerBound ?? text.endIndex
        }
        let folders = object.keys.sorted { nextKey($0) < nextKey($1) }
        return folders.map { folder in
            position = nextKey(folder)
            let pairs = object[folder] ?? [:]
            var placed: [(String.Index, String)] = pairs.keys.map { (nextKey($0), $0) }
            placed.sort { $0.0 < $1.0 }
            return (folder, placed.map { ($0.1, pairs[$0.1] ?? "") })
        }
    }
}
