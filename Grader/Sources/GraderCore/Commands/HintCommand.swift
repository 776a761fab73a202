import Foundation

/// `grader hint <exercise>`: one more hint each time.
enum HintCommand {
    /// Reveals one more hint and prints the hints shown so far (only the newest with
    /// `onlyNewest`, as watch mode does).
    static func run(_ name: String, layout: KataLayout, rubric: Rubric, onlyNewest: Bool = false) throws -> Int32 {
        let exercise = try GraderApp.select([name], from: rubric)[0]
        let file = layout.hintsFile(exercise.name, in: Language.current)
        guard let text = try? String(contentsOf: file, encoding: .utf8) else {
            throw GraderError.cannotRun(L("no hints file at ", "找不到提示文件 ") + layout.relative(file))
        }
        let hints = Hints.parse(text)
        guard !hints.isEmpty else { throw GraderError.cannotRun(layout.relative(file) + L(" has no `## ` hint headings", " 里没有 `## ` 提示标题")) }
        var progress = HintProgress(file: layout.stateDirectory.appendingPathComponent("hints.json"))
        let count = try progress.reveal(exercise.name, available: hints.count)
        let style = Style.detect()
        for (index, hint) in hints.prefix(count).enumerated() where !onlyNewest || index == count - 1 {
            print(style.bold(L("Hint \(index + 1) of \(hints.count): ", "提示 \(index + 1)/\(hints.count)：")) + Hints.withoutNumber(hint.title, index + 1))
            print(hint.body)
            print("")
        }
        let readme = L("README.md", "README.zh-Hans.md")
        print(style.dim(count < hints.count
            ? (onlyNewest ? L("Press h for the next hint.", "按 h 看下一条提示。")
                          : L("Ask again for the next hint: ", "再运行一次看下一条提示：") + "swift run grader hint \(exercise.name)")
            : L("That was the last hint. The README in Exercises/\(exercise.name)/ explains the concepts in full.",
                "这是最后一条提示。Exercises/\(exercise.name)/\(readme) 里有完整的概念讲解。")))
        return 0
    }
}
