import Foundation

/// Reads ThreadSanitizer's reports ("WARNING: ThreadSanitizer: data race …" followed by stack
/// frames) and names the first frame in the exercise's own code.
public enum SanitizerReport {
    public static func findings(in text: String, exercise: String) -> [SanitizerFinding] {
        var findings: [SanitizerFinding] = []
        var current: SanitizerFinding?
        var accesses = Accesses()
        func close() {
            if let finding = current, !accesses.allInsideMutexBodies { findings.append(finding) }
            current = nil
            accesses = Accesses()
        }
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(rawLine)
            if line.contains("WARNING: ThreadSanitizer:") {
                close()
                let summary = line.components(separatedBy: "WARNING: ThreadSanitizer: ").last ?? line
                current = SanitizerFinding(summary: summary.trimmingCharacters(in: .whitespaces), file: nil, line: nil)
                continue
            }
            guard current != nil else { continue }
            accesses.read(line)
            guard current?.file == nil, let (file, number) = ownFrame(line, exercise: exercise) else { continue }
            current?.file = file
            current?.line = number
        }
        close()
        return findings
    }

    /// The two (or more) accesses of one report, each with whether it happened inside the body of
    /// `Mutex.withLock`. On Linux, ThreadSanitizer cannot see Synchronization's `Mutex` (its lock
    /// is atomics and futexes in the Swift runtime, which is not instrumented), so it reports two
    /// accesses that the mutex keeps apart as a race. Such a body is the one closure whose type is
    /// `(inout sending Value) -> sending Result` (`Mutex.withLock`'s, SE-0433); its mangled name
    /// ends `…zYu…YTXE…`. A report whose every access is inside one is not counted; one access
    /// outside a lock (the classic bug) still is.
    struct Accesses {
        private var underMutex: [Bool] = []
        private var inAccess = false

        mutating func read(_ line: String) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { inAccess = false; return }
            let access = ["Read of size", "Write of size", "Modifying access", "Previous read", "Previous write", "Previous modifying access", "Atomic read", "Atomic write"]
            if access.contains(where: { trimmed.hasPrefix($0) }) {
                underMutex.append(false)
                inAccess = true
                return
            }
            if inAccess, trimmed.hasPrefix("#"), trimmed.range(of: #"zYu\w*YTXE"#, options: .regularExpression) != nil {
                underMutex[underMutex.count - 1] = true
            }
        }

        var allInsideMutexBodies: Bool { underMutex.count >= 2 && underMutex.allSatisfy { $0 } }
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
