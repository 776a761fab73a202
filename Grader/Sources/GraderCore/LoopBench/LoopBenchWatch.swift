import Foundation

/// Drives `swift run grader watch <exercise>` in a clone, its output on a pipe: puts the
/// exercise's solution in (not timed), then, run after run, saves a compile error, the solution
/// back (not timed), a change inside a function body and a stored property added, and times each
/// from the write to the screen that shows the points and to the one with the race check's
/// verdict (or the compile error). Every save is waited for to its last screen before the next.
final class LoopBenchWatch {
    struct Save {
        var kind: Kind
        var run: Int
        var source: String
        var timed: Bool
        enum Kind: String { case setUp, compileError, restore, bodyOnly, interface }
    }

    struct Measured {
        var kind: Save.Kind
        var toPoints: Double?
        var toVerdict: Double?
        var phases: [PhaseTimings.Phase]
        var failure: String?
    }

    let clone: KataLayout
    let exercise: String
    let timingsFile: URL
    let lines = TimedLines()
    private var saves: [Save]
    private var current: (save: Save, written: Date, points: Date?)?
    private var firstScreenSeen = false
    private(set) var measured: [Measured] = []
    private(set) var failure: String?
    /// The most one save may take to its last screen (a cold ThreadSanitizer build included).
    let saveDeadline: Double

    init(clone: KataLayout, exercise: String, runs: Int, timingsFile: URL, saveDeadline: Double = 1_200) throws {
        self.clone = clone
        self.exercise = exercise
        self.timingsFile = timingsFile
        self.saveDeadline = saveDeadline
        let solution = try String(contentsOf: Self.solutionFile(in: clone, exercise), encoding: .utf8)
        var saves = [Save(kind: .setUp, run: 0, source: solution, timed: false)]
        for run in 1...runs {
            guard let error = SourceEdits.compileError(solution),
                  let body = SourceEdits.bodyOnly(solution, marker: run),
                  let interface = SourceEdits.interface(body, marker: run) else {
                throw GraderError.cannotRun("\(exercise)'s solution has no function body or type declaration the loop benchmark can edit")
            }
            saves += [Save(kind: .compileError, run: run, source: error, timed: true),
                      Save(kind: .restore, run: run, source: solution, timed: false),
                      Save(kind: .bodyOnly, run: run, source: body, timed: true),
                      Save(kind: .interface, run: run, source: interface, timed: true)]
        }
        self.saves = saves
    }

    /// The solution's main file: `<Exercise>.swift`, else its first Swift file.
    static func solutionFile(in clone: KataLayout, _ exercise: String) -> URL {
        let folder = clone.root.appendingPathComponent("Solutions/\(exercise)")
        let own = folder.appendingPathComponent("\(exercise).swift")
        if FileManager.default.fileExists(atPath: own.path) { return own }
        let files = FileTree.relativePaths(under: folder) { path, _ in path.hasSuffix(".swift") }.sorted()
        return folder.appendingPathComponent(files.first ?? "\(exercise).swift")
    }

    var exerciseFile: URL {
        clone.root.appendingPathComponent("Exercises/\(exercise)/" + Self.solutionFile(in: clone, exercise).lastPathComponent)
    }

    /// Called about every 50 ms while watch runs; true when done (watch is then stopped).
    func step() -> Bool {
        if failure != nil { return true }
        let now = Date()
        guard let pending = current else {
            // The first screen (watch's first grade) before the first save.
            if !firstScreenSeen {
                firstScreenSeen = !WatchScreen.screens(in: lines.lines, after: .distantPast).isEmpty
                if !firstScreenSeen { return false }
                // The other files of a multi-file solution go in with the set-up save.
                copySolutionsOtherFiles()
            }
            return writeNext()
        }
        let (save, written, points) = pending
        for screen in WatchScreen.screens(in: lines.lines, after: written) {
            switch screen.status(of: exercise) {
            case .points?:
                if points == nil { current?.points = screen.at }
            case .raceVerdict?, .doesNotCompile?:
                finish(save, written: written, points: points ?? screen.at, verdict: screen.at)
                return writeNext()
            case .other(let what)?:
                finish(save, written: written, points: points ?? screen.at, verdict: nil,
                       failure: save.kind == .compileError ? nil : "the save ended \(what), not with a race check's verdict")
                return writeNext()
            case nil: break
            }
        }
        if now.timeIntervalSince(written) > saveDeadline {
            failure = "no verdict \(Int(saveDeadline)) s after the \(save.kind.rawValue) save of run \(save.run)"
            return true
        }
        return false
    }

    private func finish(_ save: Save, written: Date, points: Date, verdict: Date?, failure: String? = nil) {
        current = nil
        guard save.timed else {
            if let failure { self.failure = "the \(save.kind.rawValue) save: \(failure)" }
            return
        }
        // Watch writes its timings just before it shows the last screen of a re-grade.
        let phases = (try? JSONDecoder().decode(PhaseTimings.File.self, from: Data(contentsOf: timingsFile)))?.phases ?? []
        measured.append(Measured(kind: save.kind, toPoints: points.timeIntervalSince(written),
                                 toVerdict: verdict?.timeIntervalSince(written), phases: phases, failure: failure))
    }

    private func writeNext() -> Bool {
        guard !saves.isEmpty else { return true }
        let save = saves.removeFirst()
        try? FileManager.default.removeItem(at: timingsFile)
        let written = Date()
        // Atomically: watch must never see a half-written file.
        do { try Data(save.source.utf8).write(to: exerciseFile, options: .atomic) } catch {
            failure = "could not write \(exerciseFile.path): \(error)"
            return true
        }
        current = (save, written, nil)
        return false
    }

    private func copySolutionsOtherFiles() {
        let folder = clone.root.appendingPathComponent("Solutions/\(exercise)")
        let main = Self.solutionFile(in: clone, exercise).lastPathComponent
        for path in FileTree.relativePaths(under: folder, where: { path, _ in path.hasSuffix(".swift") }) where path != main {
            let target = clone.root.appendingPathComponent("Exercises/\(exercise)/\(path)")
            try? FileManager.default.removeItem(at: target)
            try? FileManager.default.copyItem(at: folder.appendingPathComponent(path), to: target)
        }
    }
}
