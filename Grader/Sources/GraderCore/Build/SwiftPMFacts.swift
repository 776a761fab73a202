import Foundation
import Synchronization

/// What the grader learns from SwiftPM itself instead of assuming it: the build system SwiftPM
/// uses by default, and where a build folder's products go (`swift build --show-bin-path`, the
/// documented way to find them: `<scratch>/<triple>/debug` with the native build system,
/// `<scratch>/out/Products/Debug-linux` with Swift Build here).
///
/// Asking takes SwiftPM a second or more (`--show-bin-path` loads the package), and the grader
/// skips even `swift build` when nothing changed, so the answers are kept in `.kata/swiftpm.json`
/// for the toolchain that gave them: they are asked again when `swift --version` says something
/// else (another toolchain, another Xcode).
struct SwiftPMFacts {
    var layout: KataLayout

    struct Stored: Codable {
        var toolchain: String
        var defaultBuildSystem: BuildSystem?
        /// How `defaultBuildSystem` was read: an answer kept by an older reading (which could
        /// misread a wrapped help line) is asked again.
        var defaultReading: Int?
        /// Bin paths by `key(for:)`, relative to the checkout when inside it.
        var binPaths: [String: String] = [:]
    }

    var file: URL { layout.stateDirectory.appendingPathComponent("swiftpm.json") }

    /// Answers already read in this process, by checkout (watch grades again and again).
    private static let memory = Mutex([String: Stored]())
    /// One question at a time in this process: verify builds one round while the one before it
    /// runs, and both may ask; each question also writes one log file.
    private static let asking = NSLock()

    /// The build system SwiftPM uses when no `--build-system` is given.
    func defaultBuildSystem() throws -> BuildSystem {
        Self.asking.lock()
        defer { Self.asking.unlock() }
        var stored = try current()
        if let known = stored.defaultBuildSystem, stored.defaultReading == Self.defaultReading { return known }
        // Neither question needs a package. The machine-readable answer first; then the help
        // text, asked with a width no line of it reaches, so that ArgumentParser wraps nothing;
        // a toolchain whose help says nothing readable gets the native system, which every
        // SwiftPM the course supports has.
        let dump = (try? ask(["swift", "build", "--experimental-dump-help"], environment: [:], name: "dump-help")) ?? ""
        var found = BuildSystem.defaultFromDumpHelp(dump)
        if found == nil {
            let help = (try? ask(["swift", "build", "--help"], environment: ["COLUMNS": "1000"], name: "help")) ?? ""
            found = BuildSystem.defaultFromHelp(help)
        }
        let answer = found ?? .native
        stored.defaultBuildSystem = answer
        stored.defaultReading = Self.defaultReading
        save(stored)
        return answer
    }

    static let defaultReading = 2

    /// The folder where `mode`'s build puts its products, as SwiftPM says.
    func binPath(for mode: BuildMode) throws -> URL {
        try binPath(key: Self.key(for: mode), arguments: mode.binPathArguments, environment: mode.environment(excluding: []))
    }

    /// The folder `arguments` (a `swift build --show-bin-path` command) names; `key` names the
    /// answer in the store.
    func binPath(key: String, arguments: [String], environment: [String: String]) throws -> URL {
        Self.asking.lock()
        defer { Self.asking.unlock() }
        var stored = try current()
        if let known = stored.binPaths[key] {
            return known.hasPrefix("/") ? URL(fileURLWithPath: known) : layout.root.appendingPathComponent(known)
        }
        let output = try ask(arguments, environment: environment, name: "bin-path")
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("/") }).map(String.init) else {
            throw GraderError.cannotRun(L("SwiftPM did not say where it builds (\(arguments.joined(separator: " "))):\n", "SwiftPM 没有说明它把构建产物放在哪里（\(arguments.joined(separator: " "))）：\n")
                                        + output.split(separator: "\n").suffix(10).joined(separator: "\n"))
        }
        let rootPath = layout.root.path + "/"
        stored.binPaths[key] = line.hasPrefix(rootPath) ? String(line.dropFirst(rootPath.count)) : line
        save(stored)
        return URL(fileURLWithPath: line)
    }

    static func key(for mode: BuildMode) -> String {
        "\(mode.buildSystem.rawValue) \(mode.scratchPath)\(mode.sanitize ? " tsan" : "")"
    }

    /// The stored answers if they were given by the toolchain in use now, else none.
    private func current() throws -> Stored {
        if let known = Self.memory.withLock({ $0[layout.root.path] }) { return known }
        let version = (try? ask(["swift", "--version"], environment: [:], name: "version"))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        var stored = Stored(toolchain: version)
        if let saved = try? JSONDecoder().decode(Stored.self, from: Data(contentsOf: file)), saved.toolchain == version, !version.isEmpty {
            stored = saved
        }
        Self.memory.withLock { $0[layout.root.path] = stored }
        return stored
    }

    private func save(_ stored: Stored) {
        Self.memory.withLock { $0[layout.root.path] = stored }
        // An answer from a toolchain that could not name itself is not kept.
        guard !stored.toolchain.isEmpty else { return }
        try? FileManager.default.createDirectory(at: layout.stateDirectory, withIntermediateDirectories: true)
        try? JSONEncoder().encode(stored).write(to: file, options: .atomic)
    }

    /// Runs a SwiftPM command that answers a question and returns its output; throws when it
    /// does not exit 0.
    private func ask(_ arguments: [String], environment: [String: String], name: String) throws -> String {
        let log = layout.stateDirectory.appendingPathComponent("runs/swiftpm-\(name).log")
        try FileManager.default.createDirectory(at: log.deletingLastPathComponent(), withIntermediateDirectories: true)
        let termination = try ChildProcess.run(arguments, in: layout.root, environment: environment, outputFile: log, deadline: 120)
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        guard termination == .exited(0) else {
            throw GraderError.cannotRun("`\(arguments.joined(separator: " "))` ended with \(termination):\n"
                                        + output.split(separator: "\n").suffix(10).joined(separator: "\n"))
        }
        return output
    }
}
