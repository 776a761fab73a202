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
        guard let width, Self.width(text) > width else { return [text] }
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            let room = width - (lines.isEmpty ? 0 : Self.width(hanging))
            if !current.isEmpty && Self.width(current) + 1 + Self.width(String(word)) > room {
                lines.append((lines.isEmpty ? "" : hanging) + current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + word
        }
        lines.append((lines.isEmpty ? "" : hanging) + current)
        return lines
    }

    static func indented(_ text: String, prefix: String, width: Int?) -> [String] {
        var lines: [String] = []
        for line in text.components(separatedBy: "\n") {
            let indent = String(line.prefix { $0 == " " })
            guard let width, Self.width(prefix + line) > width else {
                lines.append(prefix + line)
                continue
            }
            let room = max(20, width - Self.width(prefix + indent))
            var current = ""
            for word in line.dropFirst(indent.count).split(separator: " ", omittingEmptySubsequences: false) {
                if !current.isEmpty && Self.width(current) + 1 + Self.width(String(word)) > room {
                    lines.append(prefix + indent + current)
                    current = ""
                }
                current += (current.isEmpty ? "" : " ") + word
            }
            lines.append(prefix + indent + current)
        }
        return lines
    }
}
