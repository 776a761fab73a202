import Foundation

/// What the learner's screen shows besides one run's results: where the course stands, which
/// exercise gets the detail, how wide the terminal is.
public struct Screen: Sendable {
    /// Change since the last run and best score, for the graded exercises.
    public var history: HistorySummary?
    /// The course as a whole: this run's results, and the last known ones of the others.
    public var course: CourseProgress?
    /// The exercise whose detail is shown (nil: every exercise is complete).
    public var focus: String?
    /// `--verbose`: every exercise's detail, as before one glance was enough.
    public var verbose = false
    /// Columns to wrap messages to; nil on a pipe (nothing is wrapped).
    public var width: Int?
    /// Each exercise's number in the course.
    public var numbers: [String: Int] = [:]

    public init(history: HistorySummary? = nil, course: CourseProgress? = nil, focus: String? = nil,
                verbose: Bool = false, width: Int? = nil, numbers: [String: Int] = [:]) {
        self.history = history
        self.course = course
        self.focus = focus
        self.verbose = verbose
        self.width = width
        self.numbers = numbers
    }
}

/// Exercises complete and points earned in the whole course.
public struct CourseProgress: Equatable, Sendable {
    public var complete: Int
    public var exercises: Int
    public var points: Int
    public var totalPoints: Int

    /// This run's results, and for the exercises it did not grade their last learner-mode result
    /// in the history.
    public static func of(_ report: GradeReport, rubric: Rubric, history: History) -> CourseProgress {
        let latest = history.latestLearnerResults
        var progress = CourseProgress(complete: 0, exercises: rubric.exercises.count, points: 0, totalPoints: rubric.totalPoints)
        for exercise in rubric.exercises {
            if let result = report.exercises.first(where: { $0.name == exercise.name }) {
                progress.points += result.points
                progress.complete += result.isComplete ? 1 : 0
            } else if let last = latest[exercise.name] {
                progress.points += min(last.points, exercise.totalPoints)
                progress.complete += last.status.hasPrefix("complete") ? 1 : 0
            }
        }
        return progress
    }
}

/// Which exercise the screen details: the one named on the command line, else the one whose
/// files changed most recently (among those the learner has started and not finished), else the
/// first one not complete in course order.
enum Focus {
    static func choose(_ report: GradeReport, named: [String], layout: KataLayout, manifest: IntegrityManifest?) -> String? {
        let incomplete = report.exercises.filter { !$0.isComplete }.map(\.name)
        if let first = named.first {
            return named.first { name in incomplete.contains { $0.lowercased() == name.lowercased() } }
                .flatMap { name in incomplete.first { $0.lowercased() == name.lowercased() } }
                ?? report.exercises.first { $0.name.lowercased() == first.lowercased() }?.name
        }
        let started = incomplete.compactMap { name -> (String, Date)? in
            guard let manifest, manifest.isStarted(name, layout: layout), let changed = lastChange(of: name, layout: layout) else { return nil }
            return (name, changed)
        }
        return started.max { $0.1 < $1.1 }?.0 ?? incomplete.first
    }

    /// When the learner last saved a Swift file of `exercise`.
    static func lastChange(of exercise: String, layout: KataLayout) -> Date? {
        let folder = layout.exerciseDirectory(exercise)
        var latest: Date?
        _ = FileTree.relativePaths(under: folder) { relative, url in
            guard relative.hasSuffix(".swift"), let date = (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate else { return false }
            latest = max(latest ?? date, date)
            return true
        }
        return latest
    }
}
