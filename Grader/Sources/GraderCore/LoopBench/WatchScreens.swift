import Foundation

/// `grader watch`'s screens as they arrive on a pipe: each starts with its header line
/// ("grader watch · graded at …", printed with the screen's text once the grade is known), and the
/// exercise's row in the table says where the grade stands. The loop benchmark reads them with
/// `--lang en`.
struct WatchScreen: Equatable {
    var at: Date
    var lines: [String]

    enum Status: Equatable {
        /// The points are shown; the race check (or the systematic checks) still runs.
        case points
        /// The race check's verdict: complete, data race, race check could not run.
        case raceVerdict(String)
        case doesNotCompile
        /// Another status (in progress, crashed, …), or the grade could not run.
        case other(String)
    }

    static let headerPrefix = "grader watch · "

    /// The status of `exercise` on this screen, nil while its row has not arrived.
    func status(of exercise: String) -> Status? {
        if lines.contains(where: { $0.hasPrefix("Could not grade") }) { return .other("could not grade") }
        guard let row = lines.first(where: { $0.contains(" \(exercise) ") || $0.hasSuffix(" \(exercise)") }) else { return nil }
        if row.contains("looking for data races") { return .points }
        if lines.contains(where: { $0.contains("are trying the orders") || $0.contains("ThreadSanitizer is looking for data races") || $0.contains("ThreadSanitizer looks for data races next") }) { return .points }
        for verdict in ["race check could not run", "data race", "complete"] where row.contains(verdict) { return .raceVerdict(verdict) }
        if row.contains("does not compile") { return .doesNotCompile }
        for word in ["in progress", "timed out", "crashed", "exited early", "output limit exceeded", "race check not run"] where row.contains(word) {
            return .other(word)
        }
        return nil
    }

    /// The screens whose header arrived after `moment`.
    static func screens(in lines: [TimedLines.Line], after moment: Date) -> [WatchScreen] {
        var screens: [WatchScreen] = []
        for line in lines {
            if line.text.hasPrefix(headerPrefix) {
                if line.at >= moment { screens.append(WatchScreen(at: line.at, lines: [])) } else { screens.append(WatchScreen(at: .distantPast, lines: [])) }
            } else if !screens.isEmpty {
                screens[screens.count - 1].lines.append(line.text)
            }
        }
        return screens.filter { $0.at >= moment }
    }
}
