import Foundation
import Synchronization

/// Finds calls that Apple's SDK forbids in asynchronous code (`noasync`: a semaphore's or a
/// group's `wait`, `NSLock.lock`, `NSCondition.wait`, …). In the Swift 6 language mode such a
/// call in an `async` function or closure is a compile error on a Mac; swift-corelibs does not
/// mark them, so here it compiles. The compiler here still knows exactly which function or
/// closure each call is in and whether that is `async`: the check reads its typed syntax tree
/// (`swiftc -dump-ast`) of every module that could contain such a call.
///
/// Linux only (on a Mac the compiler itself reports these), and it needs the modules built.
struct AsyncContextCheck {
    var root: URL
    /// The build folder whose modules are checked (`.build`, `.build-solutions`), for messages.
    var scratchPath: String
    /// SwiftPM's bin folder of that build (`swift build --show-bin-path`), which the compiler
    /// must be given as the modules were built with, or it finds each cached module twice.
    var binPath: URL
    var buildSystem: BuildSystem = .native
    /// Only modules with a source file under one of these folders (all when nil).
    var onlyFolders: [String]? = nil
    /// Modules checked as well, from these source files, against the same build's modules: the
    /// stubs' exercise modules, checked in the solutions' build (an exercise module imports only
    /// its given code, which both builds share).
    var alsoChecked: [(name: String, sources: [String])] = []

    struct Finding: Equatable, Sendable {
        var location: String
        var api: String
    }

    /// Where the built modules are: the native build system keeps them in `<bin>/Modules`, Swift
    /// Build beside the products (`<bin>/<Module>.swiftmodule`).
    var moduleDirectory: URL { buildSystem == .native ? binPath.appendingPathComponent("Modules") : binPath }

    /// The compiler's cache of the system modules: the native build's own; Swift Build builds
    /// them as explicit modules, which an implicit `-dump-ast` cannot use, so it gets one of its
    /// own beside them.
    var moduleCache: URL {
        buildSystem == .native ? binPath.appendingPathComponent("ModuleCache")
            : root.appendingPathComponent(scratchPath).appendingPathComponent("out/kata-ast-ModuleCache")
    }

    /// Every module of the build with its source files: the native build system lists them in
    /// `<bin>/<Module>.build/sources`; Swift Build in `<scratch>/out/Intermediates.noindex/
    /// <Package>.build/<Configuration>/<Module>.build/Objects-normal/<arch>/<Module>.SwiftFileList`.
    func sourceLists() -> [(name: String, list: URL)] {
        let fm = FileManager.default
        if buildSystem == .native {
            let entries = (try? fm.contentsOfDirectory(atPath: binPath.path)) ?? []
            return entries.filter { $0.hasSuffix(".build") }.sorted().map {
                (String($0.dropLast(".build".count)), binPath.appendingPathComponent($0).appendingPathComponent("sources"))
            }
        }
        let intermediates = root.appendingPathComponent(scratchPath).appendingPathComponent("out/Intermediates.noindex")
        var lists: [(name: String, list: URL)] = []
        for project in ((try? fm.contentsOfDirectory(atPath: intermediates.path)) ?? []).sorted() where project.hasSuffix(".build") {
            let configuration = intermediates.appendingPathComponent(project).appendingPathComponent(binPath.lastPathComponent)
            for folder in ((try? fm.contentsOfDirectory(atPath: configuration.path)) ?? []).sorted() where folder.hasSuffix(".build") {
                let name = String(folder.dropLast(".build".count))
                let objects = configuration.appendingPathComponent(folder).appendingPathComponent("Objects-normal")
                for arch in ((try? fm.contentsOfDirectory(atPath: objects.path)) ?? []).sorted() {
                    let list = objects.appendingPathComponent(arch).appendingPathComponent("\(name).SwiftFileList")
                    if fm.fileExists(atPath: list.path) { lists.append((name, list)); break }
                }
            }
        }
        return lists
    }

    /// The base names of every API the rules name, as whole identifiers (`wait`, `lock`,
    /// `unlock`, `pthread_…`): any reference to one of them spells its name, so a file without
    /// one cannot hold a finding.
    static let blockingCallName = try! NSRegularExpression(pattern: "(?<![A-Za-z0-9_])(wait|lock|unlock|pthread_[A-Za-z0-9_]*)(?![A-Za-z0-9_])")

    static func mentionsBlockingCall(_ code: String) -> Bool {
        blockingCallName.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil
    }

    /// Every module of the build whose sources mention both a blocking call and `async` code,
    /// with the files that mention a blocking call (`primaries`): only those are type-checked in
    /// full and dumped; the compiler reads the others only as far as the primaries need them.
    func modules() -> [(name: String, sources: [String], primaries: [String])] {
        let built = sourceLists().compactMap { name, list -> (name: String, sources: [String])? in
            guard let text = try? String(contentsOf: list, encoding: .utf8) else { return nil }
            // The course's own files: a module made only of generated files (Swift Build's test
            // runners, `<Target>-test-runner`, whose source lies in the build folder) has none.
            let sources = text.split(separator: "\n").map(String.init).filter {
                $0.hasSuffix(".swift") && MacPrivatePaths.isInside($0, root.path)
                    && !(MacPrivatePaths.relative($0, to: root.path) ?? "").hasPrefix(".build")
            }
            return (name, sources)
        }
        return (built + alsoChecked).compactMap { name, sources in
            let codes = sources.map { (try? String(contentsOf: URL(fileURLWithPath: $0), encoding: .utf8)) ?? "" }
            if let onlyFolders, !sources.contains(where: { path in onlyFolders.contains { (MacPrivatePaths.relative(path, to: root.path) ?? "").hasPrefix($0 + "/") } }) { return nil }
            let primaries = zip(sources, codes).filter { Self.mentionsBlockingCall($0.1) }.map(\.0)
            guard !primaries.isEmpty, codes.contains(where: { $0.contains("async") || $0.contains("await") }) else { return nil }
            return (name, sources, primaries)
        }
    }

    /// The learner's code and the solutions': every module of the solutions' build (`.build-solutions`,
    /// which also holds the suites, the test support, the given code, the grader and the
    /// maintainer's tests), and each stub's exercise module from `Exercises/<Name>/`, checked
    /// against that build's modules. Only the solutions' build must be there, as verify leaves it.
    static func learnerAndSolutionBuilds(layout: KataLayout, buildSystem: BuildSystem, exercises: [String]) throws -> [String] {
        let mode = BuildMode(solutions: true, buildSystem: buildSystem)
        var check = AsyncContextCheck(root: layout.root, scratchPath: mode.scratchPath,
                                      binPath: try SwiftPMFacts(layout: layout).binPath(for: mode), buildSystem: buildSystem)
        check.alsoChecked = exercises.map { name in
            let folder = layout.exerciseDirectory(name)
            let files = FileTree.relativePaths(under: folder) { path, _ in path.hasSuffix(".swift") }.sorted()
            return (name, files.map { folder.appendingPathComponent($0).path })
        }
        return try check.problems()
    }

    /// The findings as verify prints them.
    func problems() throws -> [String] {
        try findings().map {
            let place = MacPrivatePaths.relative($0.location, to: root.path) ?? $0.location
            return "\(place): \($0.api) in async code: Apple's SDK marks it unavailable from asynchronous contexts, an error in the Swift 6 language mode on a Mac. Call it from a synchronous function or a dedicated Thread, or use a lock's withLock { }."
        }
    }

    /// Every module's findings; the compilers run side by side, one per core.
    func findings() throws -> [Finding] {
        // Fail closed: a build whose modules cannot be found was not checked.
        guard !sourceLists().isEmpty else {
            throw GraderError.cannotRun("found no module of \(scratchPath) (\(buildSystem.rawValue) build system) to check: build it first")
        }
        let modules = modules()
        let results = Mutex([Int: Result<[Finding], any Error>]())
        DispatchQueue.concurrentPerform(iterations: modules.count) { index in
            let result = Result { try findings(in: modules[index].name, sources: modules[index].sources, primaries: modules[index].primaries) }
            results.withLock { $0[index] = result }
        }
        var all: [Finding] = []
        for index in modules.indices {
            for finding in try results.withLock({ $0[index] })?.get() ?? [] where !all.contains(finding) {
                all.append(finding)  // a macro's expansion repeats the code it wraps
            }
        }
        return all
    }

    /// The findings in `primaries` (all of `sources` when nil), read from the compiler's dump of
    /// their typed syntax trees. One frontend job type-checks only the primaries in full (the
    /// driver would run a job per file, each parsing the whole module: the grader's own module
    /// took 38 of the check's 80 s that way, under load); see `FrontendCommand`.
    func findings(in module: String, sources: [String], primaries: [String]? = nil) throws -> [Finding] {
        let dump = FileManager.default.temporaryDirectory.appendingPathComponent("kata-ast-\(getpid())-\(module).txt")
        defer { try? FileManager.default.removeItem(at: dump) }
        _ = FileManager.default.createFile(atPath: dump.path, contents: nil)
        let output = try FileHandle(forWritingTo: dump)
        let library = sources.contains { $0.hasSuffix("/main.swift") } ? [] : ["-parse-as-library"]
        let options = ["-dump-ast", "-module-name", module] + library + [
            "-I", moduleDirectory.path,
            "-module-cache-path", moduleCache.path,
            "-swift-version", "6", "-enable-testing", "-DSWIFT_PACKAGE", "-DDEBUG",
            "-package-name", root.lastPathComponent.lowercased(),
        ]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = try FrontendCommand.arguments(options: options, sources: sources, primaries: Set(primaries ?? sources), in: root)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        try output.close()
        let text = (try? String(contentsOf: dump, encoding: .utf8)) ?? ""
        if process.terminationStatus != 0 {
            // The compiler's own messages, not the syntax tree's string literals that say "error:".
            let first = text.split(separator: "\n").first { ($0.hasPrefix("/") || $0.hasPrefix("<unknown>")) && $0.contains(": error:") }
                .map(String.init) ?? "swiftc exited with status \(process.terminationStatus)"
            throw GraderError.cannotRun("could not read the syntax tree of \(module) (is \(scratchPath) built from the current sources?): \(first)")
        }
        return Self.findings(inDump: text)
    }

    /// Reads a `-dump-ast` text: every node is a line opening with `(` at its depth's indent.
    /// The innermost function-like node (function, accessor, initializer, closure) around each
    /// call decides: is it `async`?
    static func findings(inDump text: String) -> [Finding] {
        let functionLike = ["(func_decl", "(accessor_decl", "(constructor_decl", "(destructor_decl", "(closure_expr", "(autoclosure_expr"]
        var enclosing: [(indent: Int, isAsync: Bool)] = []
        var found: [Finding] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let indent = line.prefix { $0 == " " }.count
            let body = line.dropFirst(indent)
            guard body.hasPrefix("(") else { continue }
            while let last = enclosing.last, last.indent >= indent { enclosing.removeLast() }
            if functionLike.contains(where: { body.hasPrefix($0 + " ") }) {
                let type = attribute("interface_type", in: body) ?? attribute("type", in: body) ?? ""
                enclosing.append((indent, isAsyncFunctionType(type)))
                continue
            }
            guard body.hasPrefix("(declref_expr"), let declaration = attribute("decl", in: body),
                  let api = PortabilityRules.noasyncOnApplePlatforms[Self.plainName(declaration)],
                  enclosing.last?.isAsync == true,
                  let location = attribute("location", in: body, quoted: false) else { continue }
            found.append(Finding(location: location, api: api))
        }
        return found
    }

    /// A declaration as the rules name it: `Dispatch.(file).DispatchSemaphore extension.wait()`
    /// becomes `Dispatch.(file).DispatchSemaphore.wait()`; generic substitutions and source
    /// locations are dropped.
    static func plainName(_ declaration: String) -> String {
        var name = declaration.replacingOccurrences(of: " extension.", with: ".")
        for cut in [" [with", "@"] { if let range = name.range(of: cut) { name = String(name[..<range.lowerBound]) } }
        return name
    }

    /// `name="value"` (or `name=value` up to the next space) in a node's line.
    static func attribute(_ name: String, in line: Substring, quoted: Bool = true) -> String? {
        let key = " \(name)=" + (quoted ? "\"" : "")
        guard let start = line.range(of: key) else { return nil }
        let rest = line[start.upperBound...]
        let end = quoted ? rest.firstIndex(of: "\"") : rest.firstIndex(of: " ")
        return String(rest[..<(end ?? rest.endIndex)])
    }

    /// Whether a function type is itself `async`: `(X.Type) -> (Int) async -> ()` is, and
    /// `(() async -> Void) -> ()` is not (its parameter is). Everything inside parentheses is
    /// left out before looking for the word.
    static func isAsyncFunctionType(_ type: String) -> Bool {
        var depth = 0
        var outside = ""
        for character in type {
            if character == "(" { depth += 1; continue }
            if character == ")" { depth -= 1; continue }
            if depth == 0 { outside.append(character) }
        }
        return outside.split(whereSeparator: { !$0.isLetter }).contains("async")
    }
}
