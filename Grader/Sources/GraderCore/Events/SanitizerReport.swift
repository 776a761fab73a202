import Foundation

/// Reads ThreadSanitizer's reports ("WARNING: ThreadSanitizer: …" followed by the accesses and
/// their stack frames), on Linux and on Apple platforms, and names the first frame of each in the
/// exercise's own code.
///
/// The two platforms print a frame differently:
/// - Linux (llvm-symbolizer): a mangled name and the whole path,
///   `#1 $s3Lib4BoxC4bumpyyF /home/me/my kata/Exercises/Lib/Box.swift:18:18 (Tests.xctest+0x1460d5) (BuildId: …)`.
/// - Apple platforms (`atos`): a demangled name and the file's base name only,
///   `#0 closure #3 in _urlFromBytes_impl<A, B>(_:baseURL:callback:) Parser.swift:74 (spm-tsancheck:x86_64+0x100102a60)`
///   (swiftlang/swift#61073; compiler-rt `sanitizer_symbolizer_mac.cpp`, `AtosSymbolizerProcess`).
/// A base name is matched to the graded exercise's files (`files`).
public enum SanitizerReport {
    /// The learner's races: every report with a frame in the exercise's own code, leaving out the
    /// race check's canaries and pairs of accesses that a `Mutex` keeps apart.
    public static func findings(in text: String, exercise: String, files: [String] = []) -> [SanitizerFinding] {
        blocks(in: text).filter { !$0.isCanary && !$0.allAccessesInsideMutexBodies }.map { block in
            var finding = SanitizerFinding(summary: block.summary, file: nil, line: nil)
            for access in block.accesses {
                let own = access.frames.compactMap { ownFrame($0, exercise: exercise, files: files) }
                finding.accesses.append(SanitizerFinding.Access(
                    what: access.header, thread: access.thread, ownFrames: own.map(\.place)))
            }
            // A frame with a line first; one in the learner's file without a line only when no
            // frame has both (it still names the file and the function).
            let frames = block.accesses.flatMap(\.frames) + block.otherFrames
            let own = frames.compactMap { ownFrame($0, exercise: exercise, files: files) }
            let first = own.first { $0.place.line != SanitizerFinding.Place.unknownLine } ?? own.first
            finding.file = first?.place.file
            finding.line = first.flatMap { $0.place.line == SanitizerFinding.Place.unknownLine ? nil : $0.place.line }
            finding.sameBaseName = first?.alternatives ?? []
            return finding
        }
    }

    /// Which of the race check's two canaries (`Tests/KataTestSupport/RaceCanary.swift`) reported:
    /// the one raced in the test process and the one raced in an isolated check's child process.
    /// A canary counts only when its report names `RaceCanary.swift` with a line, as a learner's
    /// race must be named to count: on Apple platforms, when `atos` cannot attach, ThreadSanitizer
    /// falls back on `dladdr`, which gives function names and no files (compiler-rt
    /// `sanitizer_symbolizer_mac.cpp`, `DlAddrSymbolizer::SymbolizePC`), and such a run could not
    /// attribute any race to the learner's code. (The racing function's own frame may have no line,
    /// measured here on Linux; its callers in the same file have one.)
    public static func canaries(in text: String) -> Set<RaceCanaryKind> {
        var seen = Set<RaceCanaryKind>()
        for block in blocks(in: text) where block.allFrames.contains(where: \.isInCanaryFileWithLine) {
            for kind in RaceCanaryKind.allCases where block.text.contains(kind.marker) { seen.insert(kind) }
        }
        return seen
    }

    /// The summaries of the reports (the canaries' left aside) in which no frame names a Swift file
    /// and line: a symbolizer that gave names without files. Such a report could be the learner's
    /// race, and nothing in it says whose; the race check cannot judge that run.
    static func reportsWithoutSourceLines(in text: String) -> [String] {
        blocks(in: text).filter { !$0.isCanary && !$0.allFrames.contains(where: \.hasSwiftLine) }.map(\.summary)
    }

    /// The base names in the reports (the canaries' and the set-aside ones left out) that name one
    /// of the exercise's `files` and also one of `otherFiles`, the files of the other exercises
    /// whose suites ran in the same process. A base name (Apple platforms) cannot say which of
    /// them raced: `Given.swift` is in six exercises, `AsyncOperation.swift` in three. The race
    /// check must not guess; it runs the exercise's suite alone instead.
    static func sharedBaseNames(in text: String, files: [String], otherFiles: [String]) -> [String] {
        let own = Set(files.map { ($0 as NSString).lastPathComponent })
        let others = Set(otherFiles.map { ($0 as NSString).lastPathComponent })
        var shared = Set<String>()
        for block in blocks(in: text) where !block.isCanary && !block.allAccessesInsideMutexBodies {
            for frame in block.allFrames {
                guard let file = frame.file, frame.line != nil, !file.hasPrefix("/"), own.contains(file), others.contains(file) else { continue }
                shared.insert(file)
            }
        }
        return shared.sorted()
    }

    /// One report, from its WARNING line to the next report or the end.
    struct Block {
        var summary: String
        var accesses: [AccessBlock] = []
        /// Frames outside an access (where a thread or a heap block was created).
        var otherFrames: [Frame] = []
        var text = ""

        var isCanary: Bool { RaceCanaryKind.allCases.contains { text.contains($0.marker) } }

        var allFrames: [Frame] { accesses.flatMap(\.frames) + otherFrames }

        /// Printed by llvm-symbolizer (Linux): the frames with a file name it by its whole path.
        var isLinuxForm: Bool {
            let files = allFrames.compactMap(\.file).filter { $0.hasSuffix(".swift") }
            return !files.isEmpty && files.allSatisfy { $0.hasPrefix("/") }
        }

        /// On Linux, ThreadSanitizer cannot see Synchronization's `Mutex` (its lock is atomics and
        /// futexes in the Swift runtime, which is not instrumented), so it reports two accesses
        /// that the mutex keeps apart as a race. A report whose every access is inside a
        /// `withLock` body is not counted; one access outside a lock (the classic bug) still is.
        /// Linux's form only: on Apple platforms `Mutex` calls `os_unfair_lock_lock` and
        /// `os_unfair_lock_unlock` (swift `stdlib/public/Synchronization/Mutex/DarwinImpl.swift`),
        /// which ThreadSanitizer intercepts (compiler-rt `tsan_interceptors_mac.cpp`), so a report
        /// there with both accesses in `withLock` bodies is a real race (two different mutexes
        /// around one value), and setting it aside could only hide it.
        var allAccessesInsideMutexBodies: Bool {
            isLinuxForm && accesses.count >= 2 && accesses.allSatisfy { $0.frames.contains(where: \.isInsideMutexBody) }
        }
    }

    struct AccessBlock {
        /// "Write of size 8 at 0x7b0c00000010 by thread T2"
        var header: String
        var thread: String
        var frames: [Frame] = []
    }

    /// One stack frame: the function as printed, and its file and line when it has them.
    struct Frame {
        var function: String
        var file: String?
        var line: Int?

        /// Inside the body of `Mutex.withLock`, as Linux prints it (mangled): the closure whose type
        /// is `(inout sending Value) -> sending Result` (SE-0433), `…zYu…YTXE…`, or a frame of
        /// `Mutex.withLock` itself.
        var isInsideMutexBody: Bool {
            function.range(of: #"zYu\w*YTXE"#, options: .regularExpression) != nil || function.contains("5MutexV8withLock")
        }

        /// A frame that names a Swift file and a line: one a race can be attributed by.
        var hasSwiftLine: Bool { file?.hasSuffix(".swift") == true && line != nil }

        /// A frame in the canary's file, with a line (a base name or a whole path).
        var isInCanaryFileWithLine: Bool {
            guard let file, line != nil else { return false }
            return (file as NSString).lastPathComponent == "RaceCanary.swift"
        }
    }

    static let accessPrefixes = [
        "Read of size", "Write of size", "Modifying access", "Atomic read", "Atomic write",
        "Previous read", "Previous write", "Previous modifying access", "Previous atomic",
    ]

    static func blocks(in text: String) -> [Block] {
        var blocks: [Block] = []
        var current: Block?
        var inAccess = false
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(rawLine)
            if let range = line.range(of: "WARNING: ThreadSanitizer: ") {
                if let block = current { blocks.append(block) }
                current = Block(summary: String(line[range.upperBound...]).trimmingCharacters(in: .whitespaces))
                current?.text = line + "\n"
                inAccess = false
                continue
            }
            guard current != nil else { continue }
            current?.text += line + "\n"
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("SUMMARY:"), let block = current {
                blocks.append(block)
                current = nil
                continue
            }
            if trimmed.isEmpty || trimmed.hasPrefix("=====") {
                inAccess = false
                continue
            }
            if accessPrefixes.contains(where: { trimmed.hasPrefix($0) }) {
                current?.accesses.append(AccessBlock(header: trimmed.hasSuffix(":") ? String(trimmed.dropLast()) : trimmed,
                                                     thread: thread(in: trimmed)))
                inAccess = true
                continue
            }
            guard let frame = frame(trimmed) else { inAccess = false; continue }
            if inAccess, var block = current, !block.accesses.isEmpty {
                block.accesses[block.accesses.count - 1].frames.append(frame)
                current = block
            } else {
                current?.otherFrames.append(frame)
            }
        }
        if let block = current { blocks.append(block) }
        return blocks
    }

    /// "… by thread T6:" → "thread T6"; "… by main thread:" → "main thread".
    static func thread(in header: String) -> String {
        guard let range = header.range(of: #"by (main thread|thread T\d+)"#, options: .regularExpression) else { return "" }
        return String(header[range].dropFirst(3))
    }

    /// Reads `#N function location (module+0x…)` in either platform's form; nil for a line that
    /// is not a frame.
    static func frame(_ trimmed: String) -> Frame? {
        guard trimmed.hasPrefix("#"), let space = trimmed.firstIndex(of: " "),
              trimmed[trimmed.index(after: trimmed.startIndex)..<space].allSatisfy(\.isNumber) else { return nil }
        var rest = String(trimmed[trimmed.index(after: space)...])
        // The trailing "(module+0x…)", "(module:arch+0x…)" and "(BuildId: …)".
        while rest.hasSuffix(")"), let open = rest.range(of: " (", options: .backwards),
              rest[open.upperBound...].contains("+0x") || rest[open.upperBound...].hasPrefix("BuildId:") {
            rest = String(rest[..<open.lowerBound])
        }
        // Linux: the whole path, which may hold spaces, starts at the first " /".
        if let match = rest.firstMatch(of: #/^(.*?) (/.*\.swift):(\d+)(?::\d+)?$/#) {
            return Frame(function: String(match.1), file: String(match.2), line: Int(match.3))
        }
        // Apple platforms: a base name.
        if let match = rest.firstMatch(of: #/^(.*) ([^ /]+\.swift):(\d+)(?::\d+)?$/#) {
            return Frame(function: String(match.1), file: String(match.2), line: Int(match.3))
        }
        // A file the symbolizer found without a line (either form): still the learner's file.
        if let match = rest.firstMatch(of: #/^(.*?) (/.*\.swift)$/#) ?? rest.firstMatch(of: #/^(.*) ([^ /]+\.swift)$/#) {
            return Frame(function: String(match.1), file: String(match.2), line: nil)
        }
        return Frame(function: rest, file: nil, line: nil)
    }

    /// A frame in the exercise's own code: its place relative to the course, and the other files
    /// of the exercise with the same base name (a frame with a base name only cannot tell them apart).
    static func ownFrame(_ frame: Frame, exercise: String, files: [String]) -> (place: SanitizerFinding.Place, alternatives: [String])? {
        guard let file = frame.file else { return nil }
        let line = frame.line ?? SanitizerFinding.Place.unknownLine
        if file.hasPrefix("/") {
            // `…/Exercises/<Name>/File.swift`, likewise in `Solutions/`, `Given/` and verify's `Grader/Variants/`.
            for folder in ["Exercises", "Solutions", "Given", "Grader/Variants"] {
                guard let start = file.range(of: "/\(folder)/\(exercise)/", options: .backwards) else { continue }
                return (.init(file: String(file[file.index(after: start.lowerBound)...]), line: line, function: frame.function), [])
            }
            return nil
        }
        let matches = files.filter { ($0 as NSString).lastPathComponent == file }
        guard let first = matches.first else { return nil }
        return (.init(file: first, line: line, function: frame.function), Array(matches.dropFirst()))
    }
}

/// The race check's two known races, outside the learner's code: one in the test process and one
/// in an isolated check's child process. Their reports prove that ThreadSanitizer was loaded in
/// both kinds of process and that its reports reach the grader in a form it reads.
public enum RaceCanaryKind: String, CaseIterable, Sendable {
    case testProcess
    case isolatedCheck

    /// The function name that racing code runs in (`Tests/KataTestSupport/RaceCanary.swift`), found
    /// mangled (Linux) and demangled (Apple platforms) alike. Swift's mangling replaces a word
    /// that appeared before in the symbol with a back-reference (measured here:
    /// `kataRaceCanaryInTestProcess` in module KataTestSupport mangles as `…kataRaceCanaryInB7Process…`),
    /// so no word of the module's name (Kata, Test, Support) may appear capitalized in these
    /// names, and none twice.
    var marker: String {
        switch self {
        case .testProcess: "kataRaceCanaryInParentProcess"
        case .isolatedCheck: "kataRaceCanaryInIsolatedCheck"
        }
    }
}
