import Foundation

/// The saves the loop benchmark makes in a watched exercise, on a right implementation: a change
/// inside a function body (the module's interface stays), a stored property added (the interface
/// changes, so what depends on the module is compiled again), and a compile error. Each carries a
/// number, so every save is new content (no remembered verdict answers it).
enum SourceEdits {
    /// A statement added at the top of the first function or initializer body.
    static func bodyOnly(_ source: String, marker: Int) -> String? {
        insert("        _ = \(marker)", after: isFunctionOpening, in: source)
    }

    /// A stored property added to the first type declared.
    static func interface(_ source: String, marker: Int) -> String? {
        insert("    private let loopBenchMarker\(marker) = \(marker)", after: isTypeOpening, in: source)
    }

    /// A line that does not compile, in the first function or initializer body.
    static func compileError(_ source: String) -> String? {
        insert("        let loopBenchError: Int = \"not a number\"", after: isFunctionOpening, in: source)
    }

    static func isFunctionOpening(_ line: Substring) -> Bool {
        let text = line.trimmingCharacters(in: .whitespaces)
        guard text.hasSuffix("{"), !text.hasPrefix("//") else { return false }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == "<" })
        return words.contains("func") || words.contains("init")
    }

    static func isTypeOpening(_ line: Substring) -> Bool {
        let text = line.trimmingCharacters(in: .whitespaces)
        guard text.hasSuffix("{"), !text.hasPrefix("//") else { return false }
        let words = text.split(separator: " ")
        return words.contains("class") || words.contains("struct") || words.contains("actor")
    }

    static func insert(_ newLine: String, after opening: (Substring) -> Bool, in source: String) -> String? {
        var lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        guard let index = lines.firstIndex(where: opening) else { return nil }
        lines.insert(Substring(newLine), at: index + 1)
        return lines.joined(separator: "\n")
    }
}
