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
    /// ThreadSanitizer's report folders get names that only quoting survives (verify's proof).
    var awkwardReportPath = false
    /// More environment for the sanitized test process.
    var testEnvironment: [String: String] = [:]
    /// Runs the sanitized test command through this (verify's faults).
    var commandPrefix: [String] = []
    /// False: neither read nor write remembered verdicts (verify's fault runs).
    var remembers = true

    struct Verdict: Codable {
        var contentID: String
        var race: SanitizerFinding?
    }

    /// Verdicts kept under earlier rules (version 1 remembered a run that could not judge as
    /// race-free) are in another file, and forgotten.
    var memoryFile: URL { layout.stateDirectory.appendingPathComponent("race-checks-2.json") }

    func memory() -> [String: Verdict] {
        guard remembers else { return [:] }
        return (try? JSONDecoder().decode([String: Verdict].self, from: Data(contentsOf: memoryFile))) ?? [:]
    }

    /// The exercises waiting for the race check whose verdict is not remembered: the ones a
    /// ThreadSanitizer run is needed for.
    func unknown(in results: [ExerciseResult]) -> [String] {
        let memory = memory()
        return results.filter { if case .lookingForRaces = $0.status { true } else { false } }
            .map(\.name).filter { memory[key($0)]?.contentID != contentID(of: $0) }
    }

    /// Records the race check's verdict in every exercise whose other checks all pass, from
    /// memory or from a ThreadSanitizer run of those it has no verdict for. Only a verdict read
    /// from a run that proved itself is remembered: "could not run" is said, earns nothing, and
    /// is tried again next time.
    func apply(to results: inout [ExerciseResult]) throws {
        var memory = memory()
        var couldNotRun: [String: String] = [:]
        let unknown = unknown(in: results)
        if !unknown.isEmpty {
            progress.note(L("All other checks of \(unknown.joined(separator: ", ")) pass; looking for data races (ThreadSanitizer)…",
                            "\(unknown.joined(separator: "、")) 的其他检查都已通过，正在用 ThreadSanitizer 检查数据竞争…"))
            var session = GradingSession(
                layout: layout, rubric: rubric,
                mode: mode.sanitized, progress: progress)
            session.awkwardReportPath = awkwardReportPath
            session.testEnvironment = testEnvironment
            session.commandPrefix = commandPrefix
            let sanitized: [ExerciseResult]
            do {
                sanitized = try session.grade(unknown.compactMap { rubric.exercise(named: $0) })
            } catch {
                if Interrupt.requested { return }
                // The ThreadSanitizer build or run could not be started at all: that is no verdict.
                let reason = L("the ThreadSanitizer build or run could not start (\(Self.firstLine(of: error)))",
                               "ThreadSanitizer 版本的构建或运行无法开始（\(Self.firstLine(of: error))）")
                sanitized = unknown.map { name in
                    var result = ExerciseResult(name: name, title: name, status: .lookingForRaces, checks: [], runs: 0, seconds: 0)
                    result.raceVerdict = .couldNotRun(reason: reason)
                    return result
                }
            }
            if Interrupt.requested { return }
            for result in sanitized {
                switch result.raceVerdict {
                case .race(let finding):
                    memory[key(result.name)] = Verdict(contentID: contentID(of: result.name), race: finding)
                case .noRace:
                    memory[key(result.name)] = Verdict(contentID: contentID(of: result.name), race: nil)
                case .couldNotRun(let reason), .notRun(let reason):
                    memory[key(result.name)] = nil
                    couldNotRun[result.name] = reason
                case nil:
                    memory[key(result.name)] = nil
                    couldNotRun[result.name] = L("the ThreadSanitizer run gave no verdict", "ThreadSanitizer 运行没有给出结论")
                }
            }
            if remembers {
                try? FileManager.default.createDirectory(at: layout.stateDirectory, withIntermediateDirectories: true)
                try? JSONEncoder().encode(memory).write(to: memoryFile, options: .atomic)
            }
        }
        for index in results.indices {
            guard case .lookingForRaces = results[index].status else { continue }
            let name = results[index].name
            if let reason = couldNotRun[name] {
                results[index].record(.couldNotRun(reason: reason))
            } else if let verdict = memory[key(name)], verdict.contentID == contentID(of: name) {
                results[index].record(verdict.race.map { .race($0) } ?? .noRace)
            } else {
                results[index].record(.couldNotRun(reason: L("no ThreadSanitizer verdict was found for this content", "没有找到这份内容的 ThreadSanitizer 结论")))
            }
        }
    }

    static func firstLine(of error: any Error) -> String {
        String(describing: error).split(separator: "\n").first.map(String.init) ?? ""
    }

    /// Where the graded sources of `exercise` are.
    func sourceFolder(_ exercise: String) -> String { mode.sourceFolder(of: exercise) }

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
        var text = "race check 5\n"
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
