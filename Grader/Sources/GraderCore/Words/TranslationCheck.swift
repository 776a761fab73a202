import Foundation

/// `grader verify`'s check that the course says the same in Simplified Chinese as in English, so
/// that a change to one language fails verify until the other follows: every exercise and check
/// has a Chinese title translated from its current English one, and every learner document has a
/// Chinese twin with the same headings, the same code (comments may be translated) and the same
/// links, made from the English text as it is now; and every message a suite can show has a Chinese
/// template in `Grader/messages.zh-Hans.json` (see `MessageCatalog`).
struct TranslationCheck {
    var layout: KataLayout
    var rubric: Rubric

    // MARK: Titles

    func titleProblems() -> [String] {
        var problems: [String] = []
        func check(_ translation: Rubric.Translation?, english: String, what: String) {
            guard let translation, !translation.title.isEmpty else {
                problems.append("\(what) has no Simplified Chinese title (zhHans in Grader/rubric.json)")
                return
            }
            if translation.from != english {
                problems.append("\(what): the Chinese title \"\(translation.title)\" was translated from \"\(translation.from)\", but the English is now \"\(english)\": translate it again and update `from`")
            }
        }
        for exercise in rubric.exercises {
            check(exercise.zhHans, english: exercise.title, what: exercise.name)
            if let note = exercise.platformNote { check(exercise.platformNoteZhHans, english: note, what: "\(exercise.name)'s platform note") }
            let titles = Checklist.titles(layout: layout, exercise: exercise.name)
            for check in exercise.suiteChecks {
                guard let english = titles[check.test] else { continue }  // verify reports a missing test elsewhere
                checkTitle(check, english: english, exercise: exercise.name, into: &problems)
            }
        }
        return problems
    }

    private func checkTitle(_ check: Rubric.Check, english: String, exercise: String, into problems: inout [String]) {
        guard let translation = check.zhHans, !translation.title.isEmpty else {
            problems.append("\(exercise).\(check.test) has no Simplified Chinese title (zhHans in Grader/rubric.json)")
            return
        }
        if translation.from != english {
            problems.append("\(exercise).\(check.test): the Chinese title was translated from \"\(translation.from)\", but the @Test title is now \"\(english)\": translate it again and update `from`")
        }
    }
}

// MARK: Documents

extension TranslationCheck {
    /// The learner's and instructors' documents in English: the top-level README, the instructors'
    /// README, and each exercise's README and hints.
    func englishDocuments() -> [String] {
        ["README.md", "Instructors/README.md"] + rubric.exercises.flatMap { ["Exercises/\($0.name)/README.md", "Exercises/\($0.name)/HINTS.md"] }
    }

    /// `README.md` → `README.zh-Hans.md`.
    static func twin(of path: String, in language: Language = .simplifiedChinese) -> String {
        String(path.dropLast(".md".count)) + ".\(language.rawValue).md"
    }

    /// The first line of a translation names the English text it was made from, by git blob id:
    /// `<!-- zh-Hans translation of README.md, from blob <id> -->`. A change to the English makes
    /// the twin stale until someone brings it up to date and stamps it (`grader translations --stamp`).
    static func stamp(for english: String, blob: String) -> String {
        "<!-- zh-Hans translation of \((english as NSString).lastPathComponent), from blob \(blob) -->"
    }

    func documentProblems() -> [String] {
        englishDocuments().flatMap { problems(english: $0) }
    }

    func problems(english path: String) -> [String] {
        let twinPath = Self.twin(of: path)
        guard let english = try? String(contentsOf: layout.root.appendingPathComponent(path), encoding: .utf8) else {
            return ["\(path) is missing"]
        }
        guard let translated = try? String(contentsOf: layout.root.appendingPathComponent(twinPath), encoding: .utf8) else {
            return ["\(twinPath) is missing: every learner document has a Simplified Chinese twin"]
        }
        var problems: [String] = []
        let blob = SHA1.gitBlobID(Data(english.utf8))
        if translated.split(separator: "\n", maxSplits: 1).first.map(String.init) != Self.stamp(for: path, blob: blob) {
            problems.append("\(twinPath) was not made from \(path) as it is now (its first line must be `\(Self.stamp(for: path, blob: blob))`): bring it up to date, then `swift run grader translations --stamp \(twinPath)`")
        }
        let (a, b) = (MarkdownOutline(english), MarkdownOutline(translated))
        if a.headingLevels != b.headingLevels {
            problems.append("\(twinPath) has headings of levels \(b.headingLevels), \(path) \(a.headingLevels)")
        }
        if a.code.count != b.code.count {
            problems.append("\(twinPath) has \(b.code.count) code blocks, \(path) \(a.code.count)")
        } else {
            for (index, (one, other)) in zip(a.code, b.code).enumerated() where one != other {
                problems.append("\(twinPath): code block \(index + 1) differs from \(path)'s (code is not translated, only its comments may be): \(other.prefix(60))… vs \(one.prefix(60))…")
            }
        }
        if a.links != b.links {
            let missing = a.links.filter { !b.links.contains($0) }, extra = b.links.filter { !a.links.contains($0) }
            problems.append("\(twinPath) links differ from \(path)'s: missing \(missing), extra \(extra)")
        }
        return problems
    }
}

/// What must be the same in a document and its translation: headings (their levels), code blocks
/// (comments removed), and link targets (a link to a translated document counts as one to its
/// English original).
struct MarkdownOutline {
    var headingLevels: [Int] = []
    var code: [String] = []
    var links: [String] = []

    init(_ text: String) {
        var block: [String]?
        var language = ""
        for line in text.components(separatedBy: "\n") {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                if let lines = block {
                    code.append(Self.withoutComments(lines, language: language))
                    block = nil
                } else {
                    block = []
                    language = line.trimmingCharacters(in: .whitespaces).dropFirst(3).trimmingCharacters(in: .whitespaces)
                }
                continue
            }
            if block != nil { block?.append(line); continue }
            if line.hasPrefix("#") {
                let level = line.prefix { $0 == "#" }.count
                if line.dropFirst(level).hasPrefix(" ") { headingLevels.append(level) }
            }
            links += Self.linkTargets(in: line)
        }
        links.sort()
    }

    /// A code block without its comments (`//` in Swift and unlabeled blocks, `#` in shell ones) and
    /// without the lines that held only a comment.
    static func withoutComments(_ lines: [String], language: String) -> String {
        let marker = ["sh", "bash", "shell", "console"].contains(language) ? "#" : "//"
        return lines.compactMap { line -> String? in
            var code = line
            if ["swift", "", "jsonc", "c", "objc"].contains(language) || marker == "#" {
                code = SwiftSourceText.commentFree(line, marker: marker)
            }
            code = String(code.reversed().drop { $0 == " " }.reversed())
            return code.isEmpty && !line.isEmpty ? nil : code
        }.joined(separator: "\n")
    }

    /// `[text](target)` targets; `X.zh-Hans.md` counts as `X.md`.
    static func linkTargets(in line: String) -> [String] {
        var targets: [String] = []
        var rest = Substring(line)
        while let open = rest.range(of: "](") {
            let after = rest[open.upperBound...]
            guard let close = after.firstIndex(of: ")") else { break }
            targets.append(String(after[..<close]).replacingOccurrences(of: ".zh-Hans.md", with: ".md"))
            rest = after[close...]
        }
        return targets
    }
}

// MARK: Messages

extension TranslationCheck {
    /// Every sentence of the suites has a Chinese template in `Grader/messages.zh-Hans.json` with
    /// the same placeholders, under its folder, and the catalog holds nothing the suites no longer say.
    func messageProblems() -> [String] {
        let file = MessageCatalog.path
        guard let catalog = try? MessageCatalog.load(from: layout.root.appendingPathComponent(file)) else {
            return ["\(file) is missing or is not a JSON object of objects of strings: `swift run grader translations --add-messages` starts it"]
        }
        let said = MessageTemplates.byFolder(layout: layout)
        var problems: [String] = []
        for (folder, templates) in said {
            let known = Dictionary(catalog.entries.first { $0.folder == folder }?.pairs ?? [], uniquingKeysWith: { first, _ in first })
            for template in templates {
                let english = Self.quoted(template.text)
                guard let chinese = known[template.text], !chinese.isEmpty else {
                    problems.append("\(template.place): no Chinese for this message. Add to \(file), under \"\(folder)\" (or run `swift run grader translations --add-messages` and fill in the empty value):\n        \(english): \"<the Chinese, with the English's \(Self.placeholders(template.text).sorted().joined(separator: " ").nonEmpty ?? "no placeholders")>\"")
                    continue
                }
                if chinese != MessageCatalog.keptAsIs, Self.placeholders(chinese) != Self.placeholders(template.text) {
                    problems.append("\(file), \"\(folder)\": the Chinese of \(english) has the placeholders \(Self.placeholders(chinese).sorted()), the English \(Self.placeholders(template.text).sorted()): each value goes in once")
                }
            }
            let current = Set(templates.map(\.text))
            for pair in catalog.entries.first(where: { $0.folder == folder })?.pairs ?? [] where !current.contains(pair.english) {
                problems.append("\(file), \"\(folder)\": \(Self.quoted(pair.english)) is no longer said by \(folder) (its English changed or it is gone): remove this entry, and translate the new English if it changed")
            }
        }
        let folders = Set(said.map(\.folder))
        for folder in catalog.entries.map(\.folder) where !folders.contains(folder) {
            problems.append("\(file): \"\(folder)\" is not a folder with messages any more: remove its entries")
        }
        return problems
    }

    /// The catalog with an empty entry for every sentence it lacks, in the sources' order, and
    /// without the entries no suite says any more: what `translations --add-messages` writes.
    func catalogWithEveryMessage() -> MessageCatalog {
        let old = (try? MessageCatalog.load(from: layout.root.appendingPathComponent(MessageCatalog.path)))?.entries ?? []
        return MessageCatalog(entries: MessageTemplates.byFolder(layout: layout).map { folder, templates in
            let known = Dictionary(old.first { $0.folder == folder }?.pairs ?? [], uniquingKeysWith: { first, _ in first })
            return (folder, templates.map { ($0.text, known[$0.text] ?? "") })
        })
    }

    static func quoted(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(text)) ?? Data(), as: UTF8.self)
    }

    /// `{1}`, `{2}`, … as a set.
    static func placeholders(_ template: String) -> Set<String> {
        var found = Set<String>()
        var rest = Substring(template)
        while let range = rest.range(of: "\\{[0-9]+\\}", options: .regularExpression) {
            found.insert(String(rest[range]))
            rest = rest[range.upperBound...]
        }
        return found
    }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
