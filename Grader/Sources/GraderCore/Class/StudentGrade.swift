import Foundation

/// What grading one student's copy gave: the grader's JSON report (`--json`, the schema in
/// Instructors/README.md), or the reason there is none.
struct StudentGrade: Sendable {
    /// The parts of the JSON report the class report reads.
    struct Report: Decodable, Sendable {
        var points: Int
        var totalPoints: Int
        var modifiedFiles: [String]
        var exercises: [Exercise]
    }

    struct Exercise: Decodable, Sendable {
        var name: String
        var status: String
        var detail: String?
        var points: Int
        var totalPoints: Int
        var copiedFromSolution: Bool
        var checks: [Check]
    }

    struct Check: Decodable, Sendable {
        var test: String
        var title: String
        var points: Int
        var earned: Int
        var passed: Bool
        var message: String?
    }

    var student: StudentCopy
    /// Nil when the copy could not be graded; `note` says why.
    var report: Report?
    var note: String?
    /// Course files the student changed (graded with the course's own anyway).
    var modifiedFiles: [String]
    /// Exercises the student's copy does not have (graded as the course's stub).
    var missingExercises: [String]
    var seconds: Double

    var copiedExercises: [String] { report?.exercises.filter(\.copiedFromSolution).map(\.name) ?? [] }
    var completeExercises: Int { report?.exercises.filter { $0.status.hasPrefix("complete") }.count ?? 0 }

    /// What went wrong in the exercises that earned nothing for a reason other than failed
    /// checks (a build error, a hang, a crash), e.g. "AsyncOperation: does not compile".
    var exerciseProblems: [String] {
        let ordinary: Set<String> = ["complete", "in_progress", "data_race", "race_check_not_run", "looking_for_races"]
        return (report?.exercises ?? []).filter { !ordinary.contains($0.status) && !$0.status.hasPrefix("complete") }
            .map { "\($0.name): \(ExerciseStatus.word(forKeyword: $0.status))" }
    }

    static func decode(_ data: Data) throws -> Report {
        try JSONDecoder().decode(Report.self, from: data)
    }
}
