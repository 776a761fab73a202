import Foundation

/// `grader list`: the exercises in course order, whole titles aligned whatever their number and
/// width, with the points earned and the status of the last run of each.
enum ListCommand {
    static func run(layout: KataLayout, rubric: Rubric) -> Int32 {
        print(render(rubric: rubric, history: History(file: layout.stateDirectory.appendingPathComponent("history.json")), style: Style.detect()))
        return 0
    }

    static func render(rubric: Rubric, history: History, style: Style) -> String {
        let latest = history.latestLearnerResults
        let rows = rubric.exercises.enumerated().map { index, exercise -> [String] in
            let last = latest[exercise.name]
            let points = "\(last.map { String(min($0.points, exercise.totalPoints)) } ?? "–")/\(exercise.totalPoints)"
            let status = last.map { ExerciseStatus.word(forKeyword: $0.status) } ?? L("not graded yet", "尚未评分")
            return [String(index + 1), exercise.name, points, status, exercise.localizedTitle]
        }
        // The title last: a long one runs on to the end of its line without moving the columns.
        let headings = ["#", L("Exercise", "练习"), L("Points", "得分"), L("Status", "状态"), L("Title", "标题")]
        let widths = headings.indices.map { column in ([headings] + rows).map { TextLayout.width($0[column]) }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            "  " + cells.indices.map { column in
                let rightAligned = column == 0 || column == 2
                return column == cells.count - 1 ? cells[column] : TextLayout.pad(cells[column], to: widths[column], alignRight: rightAligned)
            }.joined(separator: "  ")
        }
        var lines = [style.dim(line(headings))] + rows.map(line)
        let complete = rubric.exercises.filter { latest[$0.name]?.status.hasPrefix("complete") == true }.count
        let points = rubric.exercises.reduce(0) { $0 + min(latest[$1.name]?.points ?? 0, $1.totalPoints) }
        lines.append("")
        lines.append(L("Course: \(complete) of \(rubric.exercises.count) exercises complete · \(points)/\(rubric.totalPoints) points",
                       "课程：已完成 \(complete)/\(rubric.exercises.count) 个练习 · \(points)/\(rubric.totalPoints) 分"))
        return lines.joined(separator: "\n")
    }
}
