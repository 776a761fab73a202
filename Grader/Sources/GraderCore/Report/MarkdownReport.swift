import Foundation

/// A Markdown report (`--markdown FILE`): the table an instructor reads in a CI job summary.
public enum MarkdownReport {
    public static func render(_ report: GradeReport) -> String {
        var lines = ["## Concurrency Kata: \(report.points)/\(report.totalPoints) points", ""]
        if !report.modifiedFiles.isEmpty {
            lines.append("> **Warning:** these files differ from the committed originals, so this score may not be comparable: "
                + report.modifiedFiles.map { "`\($0)`" }.joined(separator: ", "))
            lines.append("")
        }
        lines.append("| Exercise | Points | Checks | Status |")
        lines.append("| --- | ---: | ---: | --- |")
        for exercise in report.exercises {
            var status = exercise.status.keyword.replacingOccurrences(of: "_", with: " ")
            if exercise.copiedFromSolution { status += " (files identical to the reference solution)" }
            lines.append("| \(cell(exercise.title)) | \(exercise.points)/\(exercise.totalPoints) | \(exercise.passedChecks)/\(exercise.checks.count) | \(cell(status)) |")
        }
        let unfinished = report.exercises.filter { !$0.isComplete }
        if !unfinished.isEmpty {
            // The detail folds away, so the job summary opens on the table.
            lines.append("")
            lines.append("<details><summary>What is left (\(unfinished.count) exercise\(unfinished.count == 1 ? "" : "s"))</summary>")
            for exercise in unfinished {
                lines.append("")
                lines.append("**\(cell(exercise.title))**: \(cell(JSONReport.describe(exercise.status).0 ?? exercise.status.keyword))")
                lines.append("")
                for check in exercise.checks where !check.passed {
                    lines.append("- ✘ \(cell(check.title)): \(cell(check.message ?? "failed"))")
                }
            }
            lines.append("")
            lines.append("</details>")
        }
        lines.append("")
        lines.append("_Graded \(report.mode.solutions ? "Solutions/" : "Exercises/") on \(Platform.name) in \(String(format: "%.1f", report.seconds)) s._")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Text safe inside a table cell: no pipes, no line breaks, not too long.
    static func cell(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
        return flat.count > 400 ? String(flat.prefix(400)) + "…" : flat
    }
}
