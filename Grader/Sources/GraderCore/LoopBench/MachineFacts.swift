import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a measurement must name: the date, the machine (cores, OS, toolchain) and its load.
enum MachineFacts {
    static func date(_ date: Date = Date()) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: date)
    }

    /// 1, 5 and 15 minutes.
    static func loadAverage() -> [Double] {
        var loads = [Double](repeating: 0, count: 3)
        return getloadavg(&loads, 3) == 3 ? loads : []
    }

    static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }

    static func operatingSystem() -> String {
        var name = utsname()
        uname(&name)
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let kernel = "\(field(name.sysname)) \(field(name.release)) \(field(name.machine))"
        #if os(Linux)
        let release = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("PRETTY_NAME=") }
            .map { $0.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        return release.map { "\($0) (\(kernel))" } ?? kernel
        #else
        return "\(ProcessInfo.processInfo.operatingSystemVersionString) (\(kernel))"
        #endif
    }

    /// `swift --version`'s first line.
    static func toolchain(scratch: URL) -> String {
        firstLine(of: ["swift", "--version"], scratch: scratch) ?? "swift --version gave nothing"
    }

    /// The commit the course's HEAD is at (short).
    static func commit(of root: URL, scratch: URL) -> String {
        firstLine(of: ["git", "-C", root.path, "rev-parse", "--short", "HEAD"], scratch: scratch) ?? "unknown"
    }

    static func firstLine(of command: [String], scratch: URL) -> String? {
        let log = scratch.appendingPathComponent("facts.log")
        guard (try? ChildProcess.run(command, in: scratch, outputFile: log, deadline: 60)) == .exited(0),
              let text = try? String(contentsOf: log, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map(String.init)
    }
}
