import Foundation

/// A SwiftPM build split into phases by the lines it prints and when they arrived.
///
/// SwiftPM prints a step's line (`[12/80] Compiling Module File.swift`, `[79/80] Linking grader`)
/// when the step has finished (its progress counter counts finished steps), so the time since the
/// line before went to that step. Steps run in parallel, so the split is an estimate; it sums to
/// the build's wall time. Before the first line SwiftPM reads the manifest and plans the build.
public enum SwiftPMPhases {
    public enum Part: String, CaseIterable, Codable, Sendable {
        case planning = "manifest and planning"
        case compiling
        case linking
        /// After the build reported its end, and lines that name no step.
        case other
    }

    /// The part a line's time goes to; nil for a line that names no step (a compiler's
    /// diagnostic, a note): its time goes where the line before it went.
    public static func part(of line: String) -> Part? {
        let text = line.trimmingCharacters(in: .whitespaces)
        let step = text.hasPrefix("[") ? String(text.drop { $0 != "]" }.dropFirst()).trimmingCharacters(in: .whitespaces) : text
        if step.hasPrefix("Linking") { return .linking }
        if step.hasPrefix("Compiling") || step.hasPrefix("Emitting module") || step.hasPrefix("Merging module")
            || step.hasPrefix("Wrapping AST") || step.hasPrefix("Generating") || step.hasPrefix("Scanning") {
            return .compiling
        }
        if step.hasPrefix("Planning") || step.hasPrefix("Building for") || step.hasPrefix("Write") || step.hasPrefix("Computing")
            || step.hasPrefix("Fetching") || step.hasPrefix("Resolving") || step.hasPrefix("Creating") {
            return .planning
        }
        if step.hasPrefix("Build complete") || step.hasPrefix("Build of") || step.hasPrefix("error: fatalError") { return .other }
        return nil
    }

    /// Seconds per part, from `lines` (offsets in seconds from the build's start) and the build's
    /// whole wall time `end`. Every part is present (0 when it took none).
    public static func split(_ lines: [(offset: Double, text: String)], end: Double) -> [Part: Double] {
        var seconds = Dictionary(uniqueKeysWithValues: Part.allCases.map { ($0, 0.0) })
        var previous = 0.0
        var current = Part.planning
        var finished = false
        for line in lines {
            let offset = min(max(line.offset, previous), end)
            let part = finished ? .other : (part(of: line.text) ?? current)
            seconds[part, default: 0] += offset - previous
            previous = offset
            current = part
            if line.text.contains("Build complete") { finished = true; current = .other }
        }
        // After the last line: the build's end (a no-op build's last line), or the step still running.
        seconds[finished ? .other : current, default: 0] += max(0, end - previous)
        return seconds
    }

    /// `split` from lines read live (`TimedLines`).
    public static func split(_ lines: TimedLines, end: Date) -> [Part: Double] {
        split(lines.lines.map { ($0.at.timeIntervalSince(lines.started), $0.text) }, end: end.timeIntervalSince(lines.started))
    }
}
