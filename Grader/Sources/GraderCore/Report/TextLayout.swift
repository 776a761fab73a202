import Foundation

/// Text in terminal columns: East Asian wide characters take two, combining marks and colour
/// codes none; lines wrapped to a width keep their own indentation (code in a message stays code).
enum TextLayout {
    /// Columns `text` takes on a terminal (escape sequences for colour take none).
    static func width(_ text: String) -> Int {
        var columns = 0
        var inEscape = false
        for scalar in text.unicodeScalars {
            if inEscape { if scalar == "m" { inEscape = false }; continue }
            if scalar == "\u{1B}" { inEscape = true; continue }
            columns += width(of: scalar)
        }
        return columns
    }

    static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .enclosingMark || value == 0x200B { return 0 }
        // Wide and fullwidth ranges (Unicode's East Asian Width W and F), the ones text here meets.
        let wide: [ClosedRange<UInt32>] = [
            0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD,
        ]
        return wide.contains { $0.contains(value) } ? 2 : 1
    }

    /// `text` padded with spaces to `columns` (on the right, or on the left with `alignRight`).
    static func pad(_ text: String, to columns: Int, alignRight: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, columns - width(text)))
        return alignRight ? padding + text : text + padding
    }

    /// Each line of `text` after `prefix`; with a `width`, a line longer than it is broken at
    /// spaces, its continuation indented like the line itself. Without one (a pipe), lines are
    /// left whole: whatever reads them wraps them its own way.
    /// One paragraph wrapped to `width` (none on a pipe): its first line as it is, the lines after
    /// it behind `hanging`, so that a "Next: …" or "✘ …" line's continuation lines up under its text.
    static func hanging(_ text: String, _ hanging: String, width: Int?) -> [String] {
        let lead = String(text.prefix { $0 == " " })
        return fill(String(text.dropFirst(lead.count)), width: width, first: lead, rest: hanging)
    }

    /// Each line of `text` after `prefix`; with a `width`, a line longer than it is broken, its
    /// continuation indented like the line itself. Without one (a pipe), lines are left whole:
    /// whatever reads them wraps them its own way.
    static func indented(_ text: String, prefix: String, width: Int?) -> [String] {
        text.components(separatedBy: "\n").flatMap { line -> [String] in
            let indent = String(line.prefix { $0 == " " })
            return fill(String(line.dropFirst(indent.count)), width: width, first: prefix + indent, rest: prefix + indent)
        }
    }

    /// Greedy filling: a line breaks at a space, or between two Chinese (wide) characters, never
    /// before closing punctuation (，。：；、）” …) nor after opening punctuation (（“ …).
    static func fill(_ body: String, width: Int?, first: String, rest: String) -> [String] {
        guard let width, Self.width(first + body) > width else { return [first + body] }
        var lines: [String] = []
        var current = ""
        var prefix = first
        for (token, spaced) in tokens(body) {
            let joined = current.isEmpty ? token : current + (spaced ? " " : "") + token
            if !current.isEmpty && Self.width(prefix + joined) > width {
                lines.append(prefix + current)
                prefix = rest
                current = token
            } else {
                current = joined
            }
        }
        lines.append(prefix + current)
        return lines
    }

    /// The pieces a line may break between, each with whether a space stood before it: words
    /// between spaces, and each wide character on its own (punctuation kept with its neighbour).
    static func tokens(_ text: String) -> [(String, Bool)] {
        let closing = Set("，。：；、）」』”’！？》…")
        let opening = Set("（「『“‘《")
        var tokens: [(String, Bool)] = []
        var word = ""
        var spaceBefore = false
        var glueNext = false
        func flush() {
            guard !word.isEmpty else { return }
            tokens.append((word, spaceBefore))
            word = ""
            spaceBefore = false
        }
        for character in text {
            if character == " " {
                flush()
                spaceBefore = true
                glueNext = false
                continue
            }
            let wide = character.unicodeScalars.first.map { width(of: $0) == 2 } ?? false
            if closing.contains(character) || glueNext {
                word.append(character)
                glueNext = opening.contains(character)
                continue
            }
            if wide {
                flush()
                word = String(character)
                glueNext = opening.contains(character)
                if !opening.contains(character) { flush() }
                continue
            }
            if let last = word.last, last.unicodeScalars.first.map({ width(of: $0) == 2 }) == true, !opening.contains(last) { flush() }
            word.append(character)
        }
        flush()
        // A closing mark that began a token belongs to the token before it.
        var merged: [(String, Bool)] = []
        for (token, spaced) in tokens {
            if let first = token.first, closing.contains(first), !spaced, let last = merged.popLast() {
                merged.append((last.0 + token, last.1))
            } else {
                merged.append((token, spaced))
            }
        }
        return merged
    }
}
