import Foundation

/// The compiler frontend's command line for one module, with primary files chosen by the caller.
///
/// The driver (`swiftc -dump-ast`) runs one frontend job per source file, each parsing every file
/// of the module, and dumps them all. The frontend itself type-checks in full only its
/// `-primary-file`s and reads the others as far as they need. The toolchain's own options (its
/// macro plugins above all) are known to the driver alone, so the job comes from the driver's
/// `-###` (print the jobs, run nothing), with the inputs replaced.
enum FrontendCommand {
    /// `swiftc <options> <sources> -###`'s first job, its inputs replaced by `sources` with each of
    /// `primaries` marked `-primary-file`, and no output file.
    static func arguments(options: [String], sources: [String], primaries: Set<String>, in directory: URL) throws -> [String] {
        let jobs = try driverJobs(options + sources + ["-###"], in: directory)
        guard let first = jobs.split(separator: "\n").first.map(String.init),
              let job = words(first), job.count > 1, job[1] == "-frontend" else {
            throw GraderError.cannotRun("swiftc -### printed no frontend job for \(options.joined(separator: " ")): \(jobs.prefix(300))")
        }
        let inputs = Set(sources)
        var kept: [String] = []
        var options = job.makeIterator()
        while let option = options.next() {
            // `-o -` names one output, for one primary; with none, the frontend dumps every
            // primary to its standard output.
            if option == "-o" { _ = options.next(); continue }
            if option != "-primary-file" && !inputs.contains(option) { kept.append(option) }
        }
        return Array(kept.prefix(2)) + sources.flatMap { primaries.contains($0) ? ["-primary-file", $0] : [$0] } + kept.dropFirst(2)
    }

    static func driverJobs(_ arguments: [String], in directory: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc"] + arguments
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw GraderError.cannotRun("swiftc -### exited with status \(process.terminationStatus): \(text.prefix(300))")
        }
        return text
    }

    /// Splits a line the driver printed for a POSIX shell: words separated by spaces, `'…'`
    /// quoting, `\` escaping outside quotes, `"…"` with `\` escapes. Nil for an unbalanced quote.
    static func words(_ line: String) -> [String]? {
        var words: [String] = []
        var word = ""
        var inWord = false
        var iterator = line.makeIterator()
        while let character = iterator.next() {
            switch character {
            case " ", "\t":
                if inWord { words.append(word); word = ""; inWord = false }
            case "'":
                inWord = true
                while true {
                    guard let next = iterator.next() else { return nil }
                    if next == "'" { break }
                    word.append(next)
                }
            case "\"":
                inWord = true
                while true {
                    guard var next = iterator.next() else { return nil }
                    if next == "\"" { break }
                    if next == "\\" { guard let escaped = iterator.next() else { return nil }; next = escaped }
                    word.append(next)
                }
            case "\\":
                inWord = true
                guard let escaped = iterator.next() else { return nil }
                word.append(escaped)
            default:
                inWord = true
                word.append(character)
            }
        }
        if inWord { words.append(word) }
        return words
    }
}
