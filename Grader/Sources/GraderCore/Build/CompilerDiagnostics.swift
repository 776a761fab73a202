import Foundation

/// A compiler error, attributed to the exercise whose files it is in.
public struct CompileError: Equatable, Sendable, Codable {
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String
    /// The exercise the file belongs to, or nil for shared code (test support, the manifest).
    public var exercise: String?
}

/// Reads `swift build` output for `path:line:col: error: message` lines.
public enum CompilerDiagnostics {
    /// Every distinct error in `output`, in the order the compiler printed them.
    /// `exercises` are the names an error's path is matched against.
    public static func errors(in output: String, exercises: [String], root: String) -> [CompileError] {
        var seen = Set<String>()
        var result: [CompileError] = []
        for rawLine in output.split(separator: "\n") {
            let line = String(rawLine)
            guard let range = line.range(of: ": error: ") else { continue }
            let location = line[..<range.lowerBound].split(separator: ":", omittingEmptySubsequences: false)
            guard location.count >= 3,
                  let lineNumber = Int(location[location.count - 2]),
                  let column = Int(location[location.count - 1]) else { continue }
            let path = location.dropLast(2).joined(separator: ":")
            let message = String(line[range.upperBound...])
            guard seen.insert("\(path):\(lineNumber):\(column):\(message)").inserted else { continue }
            let relative = MacPrivatePaths.relative(path, to: root) ?? path
            result.append(CompileError(
                file: relative, line: lineNumber, column: column, message: message,
                exercise: exercise(owning: relative, among: exercises)))
        }
        return result
    }

    /// The exercise that owns a path: `Exercises/<Name>/`, `Solutions/<Name>/`, `Given/<Name>/`,
    /// `Grader/Variants/<Name>/`, or a test folder named after it (`Tests/<Name>Tests/`,
    /// `Tests/<Name>Model/`).
    public static func exercise(owning path: String, among exercises: [String]) -> String? {
        let parts = path.split(separator: "/").map(String.init)
        for (index, part) in parts.enumerated() where index + 1 < parts.count {
            let next = parts[index + 1]
            if ["Exercises", "Solutions", "Given", "Variants"].contains(part), exercises.contains(next) { return next }
            if part == "Tests", let owner = exercises.filter({ next.hasPrefix($0) }).max(by: { $0.count < $1.count }) {
                return owner
            }
        }
        return nil
    }
}
