import Foundation

/// `grader verify`'s portability step: what would break the build on a Mac with Xcode 26, found
/// from here, where nothing compiles for macOS. It reads the sources as a Mac's compiler would
/// (`#if` branches evaluated for macOS on Apple Silicon and Intel, Swift 6.2 and 6.3) and finds
/// - a `platforms:` entry missing or too low for the APIs used (SwiftPM's default is macOS 10.13);
/// - a tools version below what the suites need (exit tests: 6.2; their capture lists: 6.3);
/// - a Linux-only symbol outside a guarded block.
/// `AsyncContextCheck` adds the APIs Apple marks unavailable from async code.
struct PortabilityCheck {
    var root: URL

    /// Folders whose Swift files are compiled by someone: the learner, the maintainer, verify.
    static let sourceFolders = ["Exercises", "Solutions", "Given", "Tests", "Grader", "Benchmarks"]

    struct SourceFile {
        var path: String
        var text: SwiftSourceText
        /// Lines compiled in at least one Mac configuration.
        var activeOnMac: [Bool]
    }

    func sourceFiles() -> [SourceFile] {
        var paths = ["Package.swift"]
        for folder in Self.sourceFolders {
            paths += FileTree.relativePaths(under: root.appendingPathComponent(folder)) { relative, _ in relative.hasSuffix(".swift") }
                .map { "\(folder)/\($0)" }
        }
        return paths.sorted().compactMap { path in
            guard let raw = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) else { return nil }
            let text = SwiftSourceText(raw)
            var active = Array(repeating: false, count: text.code.count)
            for configuration in CompilationConditions.macConfigurations {
                for (index, isActive) in text.activeLines(on: configuration).enumerated() where isActive { active[index] = true }
            }
            return SourceFile(path: path, text: text, activeOnMac: active)
        }
    }

    func problems() -> [String] {
        let files = sourceFiles()
        return packageProblems(files) + linuxOnlyProblems(files)
    }

    /// Each match of `pattern` on a line compiled for a Mac: (file, line number, the line).
    func matches(_ pattern: String, in files: [SourceFile]) -> [(path: String, line: Int, code: String)] {
        guard let expression = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else { return [] }
        var found: [(String, Int, String)] = []
        for file in files {
            for (index, line) in file.text.code.enumerated() where file.activeOnMac[index] {
                if expression.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil {
                    found.append((file.path, index + 1, line.trimmingCharacters(in: .whitespaces)))
                }
            }
        }
        return found
    }

    // MARK: Package.swift

    func packageProblems(_ files: [SourceFile]) -> [String] {
        guard let manifest = files.first(where: { $0.path == "Package.swift" }),
              let raw = try? String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8) else {
            return ["Package.swift cannot be read"]
        }
        var problems: [String] = []
        let tools = Self.toolsVersion(raw)
        let declared = Self.declaredMacOS(manifest.text.code.joined(separator: "\n"))
        let sources = files.filter { $0.path != "Package.swift" }
        let needed = PortabilityRules.macOSRequirements.compactMap { requirement -> (PortabilityRules.Requirement, String)? in
            guard let first = matches(requirement.pattern, in: sources).first else { return nil }
            return (requirement, "\(first.path):\(first.line)")
        }
        if let (highest, example) = needed.max(by: { Self.older($0.0.version, than: $1.0.version) }) {
            let have = declared ?? PortabilityRules.swiftPMDefaultMacOS
            if Self.older(have, than: highest.version) {
                let why = needed.filter { Self.older(have, than: $0.0.version) }
                    .map { "\($0.0.what) needs macOS \(Self.text($0.0.version)) (\($0.1))" }
                problems.append((declared == nil
                    ? "Package.swift declares no `platforms:`, so SwiftPM builds for macOS \(Self.text(have)) (its default), where "
                    : "Package.swift declares macOS \(Self.text(have)), but ")
                    + why.joined(separator: "; ") + ". Declare `platforms: [.macOS(.v\(highest.version[0] >= 11 ? String(highest.version[0]) : Self.text(highest.version).replacingOccurrences(of: ".", with: "_")))]` or higher. (first: \(example))")
            }
        }
        let exitTests = matches(#"processExitsWith"#, in: sources)
        if let first = exitTests.first, let tools, Self.older(tools, than: [6, 2]) {
            problems.append("Package.swift's tools version is \(Self.text(tools)), but exit tests (\(first.path):\(first.line)) need Swift 6.2: declare `// swift-tools-version: 6.2`, so that an older toolchain says so instead of failing to compile.")
        }
        if let tools, Self.older(tools, than: [6, 3]) {
            for use in exitTestCaptureLists(sources) {
                problems.append("\(use.path):\(use.line): a capture list in an exit test's closure is Swift 6.3 (swift-testing proposal ST-0012); Swift \(Self.text(tools)), which Package.swift declares, rejects it. Pass values another way (one exit test per case), or require Swift 6.3 in the tools version and the README.")
            }
        }
        return problems
    }

    /// `#expect(processExitsWith:) { [x = …] in` in code a Mac compiles, the capture list on the
    /// same line as the brace or on the next.
    func exitTestCaptureLists(_ files: [SourceFile]) -> [(path: String, line: Int)] {
        guard let expression = try? NSRegularExpression(pattern: PortabilityRules.exitTestCaptureList) else { return [] }
        var found: [(String, Int)] = []
        for file in files {
            let joined = file.text.code.joined(separator: "\n")
            let lineStarts = [0] + joined.utf16.enumerated().filter { $0.element == 10 }.map { $0.offset + 1 }
            for match in expression.matches(in: joined, range: NSRange(joined.startIndex..., in: joined)) {
                let line = (lineStarts.lastIndex { $0 <= match.range.location } ?? 0)
                if file.activeOnMac[line] { found.append((file.path, line + 1)) }
            }
        }
        return found
    }

    static func toolsVersion(_ manifest: String) -> [Int]? {
        guard let first = manifest.split(separator: "\n").first,
              let range = first.range(of: "swift-tools-version:") else { return nil }
        return first[range.upperBound...].trimmingCharacters(in: .whitespaces).split(separator: ".").compactMap { Int($0) }
    }

    /// `.macOS(.v15)`, `.macOS(.v10_15)` or `.macOS("13.0")` in the manifest's code.
    static func declaredMacOS(_ code: String) -> [Int]? {
        guard let range = code.range(of: #"\.macOS\(\s*\.v([0-9_]+)\s*\)"#, options: .regularExpression) else {
            return code.range(of: #"\.macOS\(\s*"[0-9.]+"\s*\)"#, options: .regularExpression).map {
                code[$0].filter { $0.isNumber || $0 == "." }.split(separator: ".").compactMap { Int($0) }
            }
        }
        return code[range].dropFirst(".macOS(".count).filter { $0.isNumber || $0 == "_" }.split(separator: "_").compactMap { Int($0) }
    }

    static func text(_ version: [Int]) -> String { version.map(String.init).joined(separator: ".") }

    /// `[15]` is the same version as `[15, 0]`: missing components count as 0.
    static func older(_ version: [Int], than other: [Int]) -> Bool {
        let width = max(version.count, other.count)
        let pad = { (v: [Int]) in v + Array(repeating: 0, count: width - v.count) }
        return pad(version).lexicographicallyPrecedes(pad(other))
    }

    // MARK: Linux-only symbols

    func linuxOnlyProblems(_ files: [SourceFile]) -> [String] {
        PortabilityRules.linuxOnly.flatMap { rule in
            matches(rule.pattern, in: files).map {
                "\($0.path):\($0.line): `\($0.code)` does not compile on macOS: \(rule.instead). Put it under `#if os(Linux)` (or `#if canImport(Glibc)`) and say in a comment what the other platform does."
            }
        }
    }
}
