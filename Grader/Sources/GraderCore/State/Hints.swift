import Foundation

/// Progressive hints from `Exercises/<Name>/HINTS.md`: each `## ` heading starts one hint.
public enum Hints {
    /// A hint's heading without its number ("Hint 2: Then" or "提示 2：然后" → the rest).
    static func withoutNumber(_ title: String, _ number: Int) -> String {
        for prefix in ["Hint \(number): ", "提示 \(number)：", "提示 \(number): "] where title.hasPrefix(prefix) {
            return String(title.dropFirst(prefix.count))
        }
        return title
    }

    public struct Hint: Equatable, Sendable {
        public var title: String
        public var body: String
    }

    public static func parse(_ markdown: String) -> [Hint] {
        var hints: [Hint] = []
        var title: String?
        var body: [Substring] = []
        func flush() {
            if let title { hints.append(Hint(title: title, body: body.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines))) }
        }
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                flush()
                title = String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)
                body = []
            } else if title != nil {
                body.append(line)
            }
        }
        flush()
        return hints
    }
}

/// How many hints each exercise has shown, kept in `.kata/hints.json`.
public struct HintProgress {
    public var file: URL
    public private(set) var shown: [String: Int] = [:]

    public init(file: URL) {
        self.file = file
        if let data = try? Data(contentsOf: file),
           let decoded = try? JSONDecoder().decode([String: Int].self, from: data) {
            shown = decoded
        }
    }

    /// Reveals one more hint (or all again once every hint was shown) and returns how many to show.
    public mutating func reveal(_ exercise: String, available: Int) throws -> Int {
        let next = min((shown[exercise] ?? 0) + 1, available)
        shown[exercise] = next
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(shown).write(to: file, options: .atomic)
        return next
    }
}
