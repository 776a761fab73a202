import Foundation

/// "complete" means no data race: before an exercise whose checks all pass is called complete,
/// its suite runs under ThreadSanitizer. The verdict is remembered per content of the files it
/// depends on (`.kata/race-checks.json`), so an unchanged exercise is not checked again.
struct RaceCheck {
    var layout: KataLayout
    var rubric: Rubric
    /// The mode that was graded (learner, solutions, or a verify variant); the check builds
    /// the same sources with ThreadSanitizer.
    var mode: BuildMode
    var progress: any GradingProgress

    struct Verdict: Codable {
        var contentID: String
        var race: SanitizerFinding?
    }

    var memoryFile: URL { layout.stateDirectory.appendingPathComponent("race-checks.json") }

    /// Turns "complete" into "data race" where ThreadSanitizer finds one; checks only what
    /// it has no remembered verdict for.
    func apply(to results: inout [ExerciseResult]) throws {
        var memory = (try? JSONDecoder().decode([String: Verdict].self, from: Data(contentsOf: memoryFile))) ?? [:]
        let complete = results.filter(\.isComplete).map(\.name)
        let contentIDs = Dictionary(uniqueKeysWithValues: complete.map { ($0, contentID(of: $0)) })
        let unknown = complete.filter { memory[key($0)]?.contentID != contentIDs[$0] }
        if !unknown.isEmpty {
            progress.note("All checks of \(unknown.joined(separator: ", ")) pass; looking for data races (ThreadSanitizer)…")
            let session = GradingSession(
                layout: layout, rubric: rubric,
                mode: BuildMode(solutions: mode.solutions, sanitize: true, variant: mode.variant), progress: progress)
            let sanitized = try session.grade(unknown.compactMap { rubric.exercise(named: $0) })
            if Interrupt.requested { return }
            for result in sanitized {
                var race: SanitizerFinding?
                if case .dataRace(let finding) = result.status { race = finding }
                memory[key(result.name)] = Verdict(contentID: contentIDs[result.name] ?? "", race: race)
            }
            try? FileManager.default.createDirectory(at: layout.stateDirectory, withIntermediateDirectories: true)
            try? JSONEncoder().encode(memory).write(to: memoryFile, options: .atomic)
        }
        for index in results.indices where results[index].isComplete {
            if let race = memory[key(results[index].name)]?.race { results[index].status = .dataRace(race) }
        }
    }

    /// Where the graded sources of `exercise` are.
    func sourceFolder(_ exercise: String) -> String {
        if let variant = mode.variant { return "Grader/Variants/\(exercise)/\(variant)" }
        return (mode.solutions ? "Solutions/" : "Exercises/") + exercise
    }

    func key(_ exercise: String) -> String { sourceFolder(exercise) }

    /// True when this content of the exercise was found complete and free of races before: its
    /// checks all passed (the race check runs only then) and ThreadSanitizer found nothing.
    func rememberedComplete(_ exercise: String) -> Bool {
        let memory = (try? JSONDecoder().decode([String: Verdict].self, from: Data(contentsOf: memoryFile))) ?? [:]
        guard let verdict = memory[key(exercise)] else { return false }
        return verdict.race == nil && verdict.contentID == contentID(of: exercise)
    }

    /// Names every file the verdict depends on, with its content: the exercise, its given code,
    /// its suite and the test support.
    func contentID(of exercise: String) -> String {
        let folders = [sourceFolder(exercise), "Given/\(exercise)", "Tests/\(exercise)Tests", "Tests/KataTestSupport"]
        // The verdict also depends on how reports are read: a new version forgets old verdicts.
        var text = "race check 2\n"
        for folder in folders {
            for path in IntegrityManifest.files(under: folder, layout: layout) {
                text += path + " " + (IntegrityManifest.blobID(of: path, layout: layout) ?? "-") + "\n"
            }
        }
        return SHA1.gitBlobID(Data(text.utf8))
    }
}
