import Foundation

/// The class's points as CSV (`class --csv FILE`): one row per student, one column per exercise,
/// then the total, the flags, and why a copy could not be graded. A spreadsheet or a gradebook
/// import reads it; an empty exercise cell means "not graded", never zero.
enum ClassCSV {
    static func render(_ grades: [StudentGrade], rubric: Rubric) -> String {
        let header = ["student", "folder"] + rubric.exercises.map(\.name)
            + ["points", "max_points", "complete_exercises", "copied_from_solution", "modified_course_files", "note"]
        var lines = [header.map(field).joined(separator: ",")]
        for grade in grades {
            var row = [grade.student.name, grade.student.root.path]
            let byName = Dictionary((grade.report?.exercises ?? []).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            row += rubric.exercises.map { byName[$0.name].map { String($0.points) } ?? "" }
            row += [grade.report.map { String($0.points) } ?? "", String(rubric.totalPoints),
                    grade.report == nil ? "" : String(grade.completeExercises),
                    grade.copiedExercises.joined(separator: " "), grade.modifiedFiles.joined(separator: " "),
                    ClassSummary.note(for: grade)]
            lines.append(row.map(field).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// RFC 4180: a field with a comma, a quote or a line break is quoted, quotes doubled. A
    /// field that a spreadsheet would read as a formula (=, +, -, @) gets a leading apostrophe.
    static func field(_ text: String) -> String {
        var value = text
        if let first = value.first, "=+-@".contains(first), Int(value) == nil { value = "'" + value }
        guard value.contains(where: { ",\"\n\r".contains($0) }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
