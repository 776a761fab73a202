import Foundation

/// Reads ThreadSanitizer's reports ("WARNING: ThreadSanitizer: data race …" followed by stack
/// frames) and names the first frame in the exercise's own code.
public enum SanitizerReport {
    public static func findings(in text: String, exercise: String) -> [SanitizerFinding] {
        var findings: [SanitizerFinding] = []
        var current: SanitizerFinding?
        for rawLine in text.split(separator: "\n") {
            let line = String(rawLine)
            if line.contains("WARNING: ThreadSanitizer:") {
                if let current { findings.append(current) }
                let summary = line.components(separatedBy: "WARNING: ThreadSanitizer: ").last ?? line
                current = SanitizerFinding(summary: summary.trimmingCharacters(in: .whitespaces), file: nil, line: nil)
                continue
            }
            guard current != nil, current?.file == nil, let (file, number) = ownFrame(line, exercise: exercise) else { continue }
            current?.file = file
            current?.line = number
        }
        if let current { findings.append(current) }
        return findings
    }

    /// `#3 … /path/Exercises/<Name>/File.swift:12:7 (…)` → ("Exercises/<Name>/File.swift", 12);
    /// likewise in `Solutions/`, `Given/` and verify's `Grader/Variants/`.
    static func ownFrame(_ line: String, exercise: String) -> (String, Int)? {
        for folder in ["Exercises", "Solutions", "Given", "Grader/Variants"] {
            let marker = "\(folder)/\(exercise)/"
            guard let start = line.range(of: marker) else { continue }
            let rest = line[start.lowerBound...]
            let pathEnd = rest.firstIndex(where: { $0 == " " || $0 == ")" }) ?? rest.endIndex
            let parts = rest[..<pathEnd].split(separator: ":")
            guard parts.count >= 2, let number = Int(parts[1]) else { continue }
            return (String(parts[0]), number)
        }
        return nil
    }
}
