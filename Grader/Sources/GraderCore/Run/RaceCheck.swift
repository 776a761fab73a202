import Foundation

/// The race check, the last check of every exercise: once every other check of an exercise
/// passes, its suite runs under ThreadSanitizer, and the check passes when no race is reported
/// in the exercise's code. The verdict is remembered per content of the files it depends on
/// (`.kata/race-checks.json`), so an unchanged exercise is not checked again.
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

    func memory() -> [String: Verdict] {
        (try? JSONDecoder().decode([String: Verdict].self, from: Data(contentsOf: memoryFile))) ?? [:]
    }

    /// The exercises waiting for the race check whose verdict is not remembered: the ones a
    /// ThreadSanitizer run is needed for.
    func unknown(in results: [ExerciseResult]) -> [String] {
        let memory = memory()
        return results.filter { if case .lookingForRaces = $0.status { true } else { false } }
            .map(\.name).filter { memory[key($0)]?.contentID != contentID(of: $0) }
    }

    /// Records the race check's verdict in every exercise whose other checks all pass, from
    /// memory or from a ThreadSanitizer run of those it has no verdict for.
    func apply(to results: inout [ExerciseResult]) throws {
        var memory = memory()
        let unknown = unknown(in: results)
        if !unknown.isEmpty {
            progress.note("All other checks of \(unknown.joined(separator: ", ")) pass; looking for data races (ThreadSanitizer)…")
            let session = GradingSession(
                layout: layout, rubric: rubric,
                mode: mode.sanitized, progress: progress)
            let sanitized = try session.grade(unknown.compactMap { rubric.exercise(named: $0) })
            if Interrupt.requested { return }
            for result in sanitized {
                var race: SanitizerFinding?
                if case .dataRace(let finding) = result.status { race = finding }
                memory[key(result.name)] = Verdict(contentID: contentID(of: result.name), race: race)
            }
            try? FileManager.default.createDirectory(at: layout.stateDirectory, withIntermediateDirectories: true)
            try? JSONEncoder().encode(memory).write(to: memoryFile, options: .atomic)
        }
        for index in results.indices {
            guard case .lookingForRaces = results[index].status, let verdict = memory[key(results[index].name)] else { continue }
            results[index].record(verdict.race.map { .race($0) } ?? .noRace)
        }
    }

    /// Where the graded sources of `exercise` are.
    func sourceFolder(_ exercise: String) -> String {
        if let variant = mode.variant { return "Grader/Variants/\(exercise)/\(variant)" }
        return (mode.solutions ? "Solutions/" : "Exercises/") + exercise
    }

    func key(_ exercise: String) -> String { sourceFolder(exercise) }

    /// True when this content of the exercise was found free of races before (its other checks
    /// all passed, since the race check runs only then).
    func rememberedComplete(_ exercise: String) -> Bool {
        guard let verdict = memory()[key(exercise)] else { return false }
        return verdict.race == nil && verdict.contentID == contentID(of: exercise)
    }

    /// Names every file the verdict depends on, with its content: the exercise, its given code,
    /// its suite and the test support. The exercise's own Swift files count without their
    /// comments and blank lines: a comment cannot make a race or remove one, so adding one does
    /// not cost a new ThreadSanitizer run.
    func contentID(of exercise: String) -> String {
        // The verdict also depends on how reports are read: a new version forgets old verdicts.
        var text = "race check 3\n"
        for path in IntegrityManifest.files(under: sourceFolder(exercise), layout: layout) {
            text += path + " " + (Self.codeID(of: path, layout: layout) ?? "-") + "\n"
        }
        for folder in ["Given/\(exercise)", "Tests/\(exercise)Tests", "Tests/KataTestSupport"] {
            for path in IntegrityManifest.files(under: folder, layout: layout) {
                text += path + " " + (IntegrityManifest.blobID(of: path, layout: layout) ?? "-") + "\n"
            }
        }
        return SHA1.gitBlobID(Data(text.utf8))
    }

    /// A Swift file's code without comments and blank lines (string literals kept); another
    /// file's whole content.
    static func codeID(of path: String, layout: KataLayout) -> String? {
        guard path.hasSuffix(".swift") else { return IntegrityManifest.blobID(of: path, layout: layout) }
        guard let text = try? String(contentsOf: layout.root.appendingPathComponent(path), encoding: .utf8) else { return nil }
        let code = SwiftSourceText.withoutComments(text)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: "\n")
        return SHA1.gitBlobID(Data(code.utf8))
    }
}
