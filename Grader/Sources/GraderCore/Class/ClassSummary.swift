import Foundation

/// The class summary (Markdown): who was graded, with the flags an instructor acts on, then
/// every check the class did not all pass, from the most failed, with the concept it tests and
/// the message students saw most often.
enum ClassSummary {
    /// How one check fared across the graded students.
    struct CheckTally: Equatable {
        var exercise: String
        var test: String
        var title: String
        var courseOrder: Int
        var passed: Int
        var graded: Int
        /// The most frequent first line of the failure messages, and how many students saw it.
        var commonMessage: String?
        var commonCount: Int

        var failed: Int { graded - passed }
    }

    /// Every check of the rubric, with how many graded students passed it, most failed first
    /// (ties in course order).
    static func tallies(_ grades: [StudentGrade], rubric: Rubric) -> [CheckTally] {
        let reports = grades.compactMap(\.report)
        var order = 0
        var tallies: [CheckTally] = []
        for exercise in rubric.exercises {
            for check in exercise.checks {
                var passed = 0
                var messages: [String: Int] = [:]
                var title = check.test
                for report in reports {
                    guard let graded = report.exercises.first(where: { $0.name == exercise.name })?.checks.first(where: { $0.test == check.test }) else { continue }
                    title = graded.title
                    if graded.passed && graded.earned == graded.points {
                        passed += 1
                    } else if let line = graded.message?.split(separator: "\n").first.map(String.init) {
                        messages[line, default: 0] += 1
                    }
                }
                let common = messages.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }
                tallies.append(CheckTally(exercise: exercise.name, test: check.test, title: title, courseOrder: order,
                                          passed: passed, graded: reports.count,
                                          commonMessage: common?.key, commonCount: common?.value ?? 0))
                order += 1
            }
        }
        return tallies.sorted { ($0.passed, $0.courseOrder) < ($1.passed, $1.courseOrder) }
    }

    /// What the CSV's note and the student table say about a copy beyond its points.
    static func note(for grade: StudentGrade) -> String {
        var parts: [String] = []
        if let note = grade.note { parts.append(note) }
        parts += grade.exerciseProblems
        if !grade.missingExercises.isEmpty {
            parts.append(L("graded as the untouched stub (not in the copy): ", "按未改动的练习模板评分（副本里没有）：") + grade.missingExercises.joined(separator: ", "))
        }
        return parts.joined(separator: "; ")
    }

    static func render(_ grades: [StudentGrade], rubric: Rubric, options: String, seconds: Double) -> String {
        let graded = grades.filter { $0.report != nil }
        var text = L("# Concurrency Kata: class summary\n\n", "# Concurrency Kata：全班汇总\n\n")
        text += L("\(grades.count) student copies, \(graded.count) graded, \(grades.count - graded.count) could not be graded; \(options); \(Int(seconds.rounded())) s in all. ",
                  "共 \(grades.count) 份学生副本，评分 \(graded.count) 份，\(grades.count - graded.count) 份无法评分；\(options)；共用时 \(Int(seconds.rounded())) 秒。")
        text += L("Each copy was graded in a clean copy of the course: only its Exercises/ folder counts.\n\n",
                  "每份副本都在课程的干净副本里评分：只有它的 Exercises/ 文件夹算数。\n\n")
        text += L("## Students\n\n", "## 学生\n\n")
        text += L("| Student | Points | Complete | Copied from the solution | Course files changed | Note |\n",
                  "| 学生 | 分数 | 已完成 | 抄自参考答案 | 改动的课程文件 | 说明 |\n")
        text += "|---|---|---|---|---|---|\n"
        for grade in grades {
            let points = grade.report.map { "\($0.points)/\($0.totalPoints)" } ?? L("not graded", "未评分")
            let complete = grade.report == nil ? "" : "\(grade.completeExercises)/\(rubric.exercises.count)"
            let modified = grade.modifiedFiles.count > 3
                ? grade.modifiedFiles.prefix(3).joined(separator: ", ") + L(" and \(grade.modifiedFiles.count - 3) more", " 等 \(grade.modifiedFiles.count) 个")
                : grade.modifiedFiles.joined(separator: ", ")
            text += "| \(cell(grade.student.name)) | \(points) | \(complete) | \(cell(grade.copiedExercises.joined(separator: ", "))) | \(cell(modified)) | \(cell(note(for: grade))) |\n"
        }
        let tallies = tallies(grades, rubric: rubric)
        let failedSome = tallies.filter { $0.failed > 0 }
        text += L("\n## Checks, most failed first\n\n", "\n## 检查项，失败最多的在前\n\n")
        guard !graded.isEmpty else { return text + L("No copy could be graded.\n", "没有一份副本能评分。\n") }
        text += L("Passed: how many of the \(graded.count) graded students earned the check's points. \(tallies.count - failedSome.count) of \(tallies.count) checks were passed by everyone and are not listed.\n\n",
                  "通过：\(graded.count) 名已评分学生中拿到这项分数的人数。\(tallies.count) 项检查中有 \(tallies.count - failedSome.count) 项人人通过，未列出。\n\n")
        text += L("| # | Passed | Exercise | Check | Concept | Most common message |\n",
                  "| # | 通过 | 练习 | 检查项 | 概念 | 最常见的提示 |\n")
        text += "|---|---|---|---|---|---|\n"
        for (index, tally) in failedSome.enumerated() {
            let message = tally.commonMessage.map { "\(shortened($0)) (\(tally.commonCount)×)" } ?? ""
            text += "| \(index + 1) | \(tally.passed)/\(tally.graded) | \(tally.exercise) | \(cell(tally.title)) | \(cell(Concepts.of(tally.exercise))) | \(cell(message)) |\n"
        }
        return text
    }

    static func shortened(_ text: String, to length: Int = 140) -> String {
        text.count <= length ? text : String(text.prefix(length - 1)) + "…"
    }

    /// A Markdown table cell: pipes escaped, line breaks made spaces.
    static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
