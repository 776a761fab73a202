import Foundation

/// One grading run, as kept in `.kata/history.json`.
public struct HistoryEntry: Codable, Equatable, Sendable {
    public var date: Date
    public var solutions: Bool
    /// Points per exercise graded in that run.
    public var points: [String: Int]
    /// Status keyword per exercise graded in that run (see `ExerciseStatus.keyword`).
    public var statuses: [String: String]
}

/// What the table says about progress: the change since the last run and the best score.
public struct HistorySummary: Equatable, Sendable {
    public var changeSinceLast: Int?
    public var best: Int
}

/// The run history: written atomically after every run; a file that cannot be read is set
/// aside with a warning and a new history starts, so it never stops grading.
public struct History {
    public var file: URL
    public private(set) var entries: [HistoryEntry] = []
    /// Set when a corrupt file was set aside while loading.
    public private(set) var warning: String?

    public init(file: URL) {
        self.file = file
        guard let data = try? Data(contentsOf: file) else { return }
        if let decoded = try? Self.decoder.decode([HistoryEntry].self, from: data) {
            entries = decoded
            return
        }
        let aside = file.deletingLastPathComponent()
            .appendingPathComponent("history.corrupt-\(Int(Date().timeIntervalSince1970)).json")
        try? FileManager.default.moveItem(at: file, to: aside)
        warning = L("The grader's history (\(file.lastPathComponent)) could not be read; it was moved to \(aside.lastPathComponent) and a new history was started.",
                    "评分程序的历史记录（\(file.lastPathComponent)）无法读取；它已被移到 \(aside.lastPathComponent)，并开始了新的历史记录。")
    }

    /// Compares `results` with the last run of the same mode that graded the same exercises.
    public func summary(for results: [ExerciseResult], solutions: Bool) -> HistorySummary {
        let names = Set(results.map(\.name))
        let now = results.reduce(0) { $0 + $1.points }
        let comparable = entries.filter { $0.solutions == solutions && names.isSubset(of: Set($0.points.keys)) }
        let scores = comparable.map { entry in names.reduce(0) { $0 + (entry.points[$1] ?? 0) } }
        return HistorySummary(changeSinceLast: scores.last.map { now - $0 }, best: max(now, scores.max() ?? 0))
    }

    /// Appends a run and writes the file atomically (a temporary file, then a rename).
    public mutating func record(_ results: [ExerciseResult], solutions: Bool, date: Date = Date()) throws {
        entries.append(HistoryEntry(
            date: date, solutions: solutions,
            points: Dictionary(uniqueKeysWithValues: results.map { ($0.name, $0.points) }),
            statuses: Dictionary(uniqueKeysWithValues: results.map { ($0.name, $0.status.keyword) })))
        entries = Array(entries.suffix(500))
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(entries).write(to: file, options: .atomic)
    }

    /// The latest points and status of each exercise in learner mode, for `grader list` and the
    /// course's progress line.
    public var latestLearnerResults: [String: (points: Int, status: String)] {
        var results: [String: (points: Int, status: String)] = [:]
        for entry in entries where !entry.solutions {
            for (name, status) in entry.statuses { results[name] = (entry.points[name] ?? 0, status) }
        }
        return results
    }

    /// The latest status of each exercise in learner mode, for `grader list`.
    public var latestStatuses: [String: String] { latestLearnerResults.mapValues(\.status) }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
