import Foundation

/// `grader hint <exercise>`: one more hint each time.
enum HintCommand {
    /// Reveals one more hint and prints the hints shown so far (only the newest with
    /// `onlyNewest`, as watch mode does).
    static func run(_ name: String, layout: KataLayout, rubric: Rubric, onlyNewest: Bool = false) throws -> Int32 {
        let exercise = try GraderApp.select([name], from: rubric)[0]
        guard let text = try? String(contentsOf: layout.hintsFile(exercise.name), encoding: .utf8) else {
            throw GraderError.cannotRun("no hints file at \(layout.relative(layout.hintsFile(exercise.name)))")
        }
        let hints = Hints.parse(text)
        guard !hints.isEmpty else { throw GraderError.cannotRun("\(layout.relative(layout.hintsFile(exercise.name))) has no `## ` hint headings") }
        var progress = HintProgress(file: layout.stateDirectory.appendingPathComponent("hints.json"))
        let count = try progress.reveal(exercise.name, available: hints.count)
        let style = Style.detect()
        for (index, hint) in hints.prefix(count).enumerated() where !onlyNewest || index == count - 1 {
            print(style.bold("Hint \(index + 1) of \(hints.count): ") + hint.title.replacingOccurrences(of: "Hint \(index + 1): ", with: ""))
            print(hint.body)
            print("")
        }
        print(style.dim(count < hints.count
            ? (onlyNewest ? "Press h for the next hint." : "Ask again for the next hint: swift run grader hint \(exercise.name)")
            : "That was the last hint. The README in Exercises/\(exercise.name)/ explains the concepts in full."))
        return 0
    }
}
