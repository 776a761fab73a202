import Foundation

/// `grader list`: exercises in course order with their status from the last run.
enum ListCommand {
    static func run(layout: KataLayout, rubric: Rubric) -> Int32 {
        let statuses = History(file: layout.stateDirectory.appendingPathComponent("history.json")).latestStatuses
        for (index, exercise) in rubric.exercises.enumerated() {
            let status = statuses[exercise.name].map { $0.replacingOccurrences(of: "_", with: " ") } ?? "not graded yet"
            print("\(index + 1). \(exercise.name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(exercise.title.padding(toLength: 34, withPad: " ", startingAt: 0)) \(exercise.totalPoints) points  \(status)")
        }
        return 0
    }
}
