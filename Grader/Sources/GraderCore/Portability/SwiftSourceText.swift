import Foundation

/// Swift source reduced to what the compiler reads, line by line, for the portability check's
/// searches: comments and string literals are blanked (so documentation that names `st_mtim`
/// is not a use of it), and each line knows whether it is compiled on a given platform.
struct SwiftSourceText {
    /// The code of each line, comments and the contents of string literals replaced by spaces.
    let code: [String]

    init(_ text: String) {
        code = Self.blankCommentsAndStrings(text).components(separatedBy: "\n")
    }

    /// One line up to its comment (`marker`: `//` or `#`), string literals respected: a marker inside
    /// quotes is not a comment.
    static func commentFree(_ line: String, marker: String) -> String {
        var inString = false
        var index = line.startIndex
        while index < line.endIndex {
            if line[index] == "\"" { inString.toggle() }
            if !inString, line[index...].hasPrefix(marker) { return String(line[..<index]) }
            index = line.index(after: index)
        }
        return line
    }

    /// The text with its comments replaced by spaces, string literals kept.
    static func withoutComments(_ text: String) -> String {
        blankCommentsAndStrings(text, blankingStrings: false)
    }

    /// Replaces comments and the contents of string literals (plain, multi-line and raw) with
    /// spaces, keeping line breaks and the quotes, so line numbers and the code around stay.
    static func blankCommentsAndStrings(_ text: String, blankingStrings: Bool = true) -> String {
        let characters = Array(text)
        var output: [Character] = []
        output.reserveCapacity(characters.count)
        var index = 0
        func blank(_ character: Character) -> Character { character == "\n" ? "\n" : " " }
        func inString(_ character: Character) -> Character { blankingStrings ? blank(character) : character }
        func starts(_ literal: String, at position: Int) -> Bool {
            let needle = Array(literal)
            guard position + needle.count <= characters.count else { return false }
            return Array(characters[position..<position + needle.count]) == needle
        }
        while index < characters.count {
            let character = characters[index]
            if starts("//", at: index) {
                while index < characters.count && characters[index] != "\n" { output.append(" "); index += 1 }
            } else if starts("/*", at: index) {
                var depth = 0
                repeat {
                    if starts("/*", at: index) { depth += 1; output += [" ", " "]; index += 2; continue }
                    if starts("*/", at: index) { depth -= 1; output += [" ", " "]; index += 2; continue }
                    output.append(blank(characters[index]))
                    index += 1
                } while depth > 0 && index < characters.count
            } else if character == "#" || character == "\"" {
                // A string literal: `#`s (raw), then `"` or `"""`; it ends at the same quotes and `#`s.
                var hashes = 0
                while index + hashes < characters.count && characters[index + hashes] == "#" { hashes += 1 }
                let quoteStart = index + hashes
                guard quoteStart < characters.count, characters[quoteStart] == "\"" else {
                    output.append(character)
                    index += 1
                    continue
                }
                let quotes = starts("\"\"\"", at: quoteStart) ? "\"\"\"" : "\""
                let closing = quotes + String(repeating: "#", count: hashes)
                output += Array(String(repeating: "#", count: hashes) + quotes)
                index = quoteStart + quotes.count
                while index < characters.count && !starts(closing, at: index) {
                    if hashes == 0 && characters[index] == "\\" && index + 1 < characters.count {
                        output += [inString(characters[index]), inString(characters[index + 1])]
                        index += 2
                        continue
                    }
                    if quotes == "\"" && characters[index] == "\n" { break }
                    output.append(inString(characters[index]))
                    index += 1
                }
                if index < characters.count && starts(closing, at: index) {
                    output += Array(closing)
                    index += closing.count
                }
            } else {
                output.append(character)
                index += 1
            }
        }
        return String(output)
    }

    /// Whether each line is compiled for `platform`: lines in an inactive `#if` branch are not,
    /// nor are the directive lines themselves.
    func activeLines(on platform: CompilationConditions) -> [Bool] {
        var active: [Bool] = []
        // One frame per open `#if`: was the enclosing code active, has a branch been taken, is this one taken.
        var frames: [(outer: Bool, taken: Bool, current: Bool)] = []
        var enclosing: Bool { frames.last.map { $0.outer && $0.current } ?? true }
        for line in code {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#if ") || trimmed.hasPrefix("#if(") {
                let value = platform.evaluate(String(trimmed.dropFirst(3)))
                frames.append((enclosing, value, value))
                active.append(false)
            } else if trimmed.hasPrefix("#elseif"), var frame = frames.popLast() {
                let value = !frame.taken && platform.evaluate(String(trimmed.dropFirst(7)))
                frame.current = value
                frame.taken = frame.taken || value
                frames.append(frame)
                active.append(false)
            } else if trimmed.hasPrefix("#else"), var frame = frames.popLast() {
                frame.current = !frame.taken
                frame.taken = true
                frames.append(frame)
                active.append(false)
            } else if trimmed.hasPrefix("#endif") {
                _ = frames.popLast()
                active.append(false)
            } else {
                active.append(enclosing)
            }
        }
        return active
    }
}
