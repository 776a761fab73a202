import Foundation

/// One graded check as a grading platform shows it (Classroom 50, Gradescope): the name, the
/// points earned and possible, whether it earned them all, and what the learner should read.
/// The race check is a check like any other: when it did not pass (a race, or it could not or
/// did not run) it is a failed test with its message.
struct PlatformTest: Equatable {
    var exercise: String
    var test: String
    var name: String
    /// "<exercise's course number>.<check's number>", for the platforms' ordering.
    var number: String
    var score: Int
    var maxScore: Int
    /// True only when the check passed and earned its points: a check that passed but whose
    /// points are withheld (the checks it requires failed) is not a pass on a platform's sheet.
    var passed: Bool
    var message: String?

    /// One test per check of every graded exercise, in course order.
    static func all(in report: GradeReport) -> [PlatformTest] {
        report.exercises.enumerated().flatMap { exerciseIndex, exercise in
            exercise.checks.enumerated().map { checkIndex, check in
                let fullCredit = check.passed && check.earned == check.points
                let message: String? = if check.passed {
                    check.withheld
                } else {
                    check.message ?? JSONReport.describe(exercise.status).0 ?? L("failed", "未通过")
                }
                return PlatformTest(
                    exercise: exercise.name, test: check.test, name: "\(exercise.name): \(check.title)",
                    number: "\(exerciseIndex + 1).\(checkIndex + 1)", score: check.earned,
                    maxScore: check.points, passed: fullCredit, message: message)
            }
        }
    }

    /// A few lines for the whole submission: the score, then each exercise's status.
    static func summary(of report: GradeReport) -> String {
        let complete = report.exercises.filter(\.isComplete).count
        var lines = [L("Concurrency Kata: \(report.points)/\(report.totalPoints) points; \(complete) of \(report.exercises.count) exercises complete.",
                       "Concurrency Kata：\(report.points)/\(report.totalPoints) 分；\(report.exercises.count) 个练习中完成了 \(complete) 个。")]
        for exercise in report.exercises {
            let detail = JSONReport.describe(exercise.status).0.map { " (\($0))" } ?? ""
            lines.append("- \(exercise.name): \(exercise.points)/\(exercise.totalPoints), \(exercise.status.word)\(detail)")
        }
        if !report.modifiedFiles.isEmpty {
            lines.append(L("Warning: these course files differ from the originals, so this score may not be the course's: ",
                           "警告：这些课程文件与原始文件不同，所以这个分数可能不是课程的评分：") + report.modifiedFiles.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }
}
