import Foundation

/// A Markdown report (`--markdown FILE`): the table an instructor reads in a CI job summary.
public enum MarkdownReport {
    public static func render(_ report: GradeReport) -> String {
        var lines = [L("## Concurrency Kata: \(report.points)/\(report.totalPoints) points", "## Concurrency Kata：\(report.points)/\(report.totalPoints) 分"), ""]
        if !report.modifiedFiles.isEmpty {
            lines.append(L("> **Warning:** these files differ from the committed originals, so this score may not be comparable: ",
                           "> **警告：**以下文件与提交的原始版本不同，这个分数可能不可比：")
                + report.modifiedFiles.map { "`\($0)`" }.joined(separator: ", "))
            lines.append("")
        }
        lines.append(L("| Exercise | Points | Checks | Status |", "| 练习 | 得分 | 检查 | 状态 |"))
        lines.append("| --- | ---: | ---: | --- |")
        for exercise in report.exercises {
            var status = exercise.status.word
            if exercise.copiedFromSolution { status += L(" (files identical to the reference solution)", "（文件与参考答案完全相同）") }
            lines.append("| \(cell(exercise.title)) | \(exercise.points)/\(exercise.totalPoints) | \(exercise.passedChecks)/\(exercise.checks.count) | \(cell(status)) |")
        }
        let unfinished = report.exercises.filter { !$0.isComplete }
        if !unfinished.isEmpty {
            // The detail folds away, so the job summary opens on the table.
            lines.append("")
            lines.append(L("<details><summary>What is left (\(unfinished.count) exercise\(unfinished.count == 1 ? "" : "s"))</summary>",
                           "<details><summary>还剩下什么（\(unfinished.count) 个练习）</summary>"))
            for exercise in unfinished {
                lines.append("")
                lines.append("**\(cell(exercise.title))**: \(cell(JSONReport.describe(exercise.status).0 ?? exercise.status.keyword))")
                lines.append("")
                for check in exercise.checks where !check.passed {
                    lines.append("- ✘ \(cell(check.title))" + L(": ", "：") + cell(check.message ?? L("failed", "未通过")))
                }
            }
            lines.append("")
            lines.append("</details>")
        }
        lines.append("")
        let source = report.mode.solutions ? "Solutions/" : "Exercises/"
        let seconds = String(format: "%.1f", report.seconds)
        lines.append(L("_Graded \(source) on \(Platform.name) in \(seconds) s._", "_在 \(Platform.name) 上给 \(source) 评分，用时 \(seconds) 秒。_"))
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text safe inside a table cell: no pipes, no line breaks, not too long.
    static func cell(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
        return flat.count > 400 ? String(flat.prefix(400)) + "…" : flat
    }
}
