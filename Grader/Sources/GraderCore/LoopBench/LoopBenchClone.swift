import Foundation

/// A temporary folder with clones of the course's HEAD (`git clone`, so only committed work is
/// measured), and the commands the loop benchmark runs in them, timed. Removed when done.
struct LoopBenchWorkspace {
    var origin: KataLayout
    var folder: URL
    var buildSystem: BuildSystem

    init(origin: KataLayout, buildSystem: BuildSystem) throws {
        self.origin = origin
        self.buildSystem = buildSystem
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("kata-loop-bench-\(getpid())")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }

    /// A fresh clone named `name`; throws when git fails.
    func clone(_ name: String) throws -> KataLayout {
        let target = folder.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: target)
        let termination = try ChildProcess.run(["git", "clone", "--quiet", origin.root.path, target.path], in: folder,
                                               outputFile: folder.appendingPathComponent("\(name)-clone.log"), deadline: 600)
        guard termination == .exited(0) else {
            throw GraderError.cannotRun("git clone of \(origin.root.path) ended with \(termination); see \(folder.appendingPathComponent("\(name)-clone.log").path)")
        }
        return KataLayout(root: target)
    }

    /// One timed command in `clone`.
    struct Timed {
        var seconds: Double
        var termination: Termination
        /// The grader's own phases (`--timings`), when it wrote them.
        var timings: PhaseTimings.File?
        var log: URL
        /// Every line of the output, with the moment it arrived.
        var lines: TimedLines
    }

    /// `swift run grader <arguments>` in `clone`, with `--timings`, English words and the build system.
    func grader(_ arguments: [String], in clone: KataLayout, name: String, deadline: Double = 3_600) throws -> Timed {
        let timings = folder.appendingPathComponent("\(name)-timings.json")
        try? FileManager.default.removeItem(at: timings)
        let command = ["swift", "run"] + buildSystem.swiftPMArguments + ["grader"] + arguments
            + ["--lang", "en", "--no-wait", "--build-system", buildSystem.rawValue, "--timings", timings.path]
        var timed = try run(command, in: clone, name: name, deadline: deadline)
        timed.timings = try? JSONDecoder().decode(PhaseTimings.File.self, from: Data(contentsOf: timings))
        return timed
    }

    func run(_ command: [String], in clone: KataLayout, name: String, environment: [String: String] = [:], deadline: Double) throws -> Timed {
        let log = folder.appendingPathComponent("\(name).log")
        let lines = TimedLines()
        let termination = try ChildProcess.run(command, in: clone.root, environment: environment, outputFile: log,
                                               limits: ChildLimits(deadline: deadline, keptOutput: 4 << 20), lines: lines)
        return Timed(seconds: Date().timeIntervalSince(lines.started), termination: termination, timings: nil, log: log, lines: lines)
    }
}
