import Foundation

/// SwiftPM's two build systems. They put the test products in different places and in
/// different shapes: the native one builds one test product for the whole package
/// (`ConcurrencyKataPackageTests`), Swift Build one per test target (`<Name>Tests`).
public enum BuildSystem: String, Sendable, CaseIterable, Codable {
    case native
    case swiftbuild

    /// The option every SwiftPM command the grader runs gets, so that the build, the bin path and
    /// `swift test` all mean the same build.
    public var swiftPMArguments: [String] { ["--build-system", rawValue] }

    /// True when each test target is a test product of its own, run by its own process.
    public var hasProductPerTestTarget: Bool { self == .swiftbuild }

    /// The build system SwiftPM uses when told nothing, from its machine-readable help:
    /// swift-argument-parser's `--experimental-dump-help` (every command has it; SwiftPM 6.3.1
    /// prints, measured here, `{"command": {"arguments": [… {"names": [{"kind": "long", "name":
    /// "build-system"}], "defaultValue": "native", …}`). SwiftPM declares the option with a default
    /// value (`Options.swift`, `BuildOptions`: `var _buildSystem: BuildSystemProvider.Kind =
    /// .native` in 6.2 and 6.3, `= .swiftbuild` on 6.4's branch), which is what this reads.
    /// Nil when the text is not that JSON or does not name the option's default.
    static func defaultFromDumpHelp(_ output: String) -> BuildSystem? {
        guard let start = output.firstIndex(of: "{"), let end = output.lastIndex(of: "}"), start < end,
              let json = try? JSONSerialization.jsonObject(with: Data(output[start...end].utf8)) as? [String: Any],
              let command = json["command"] as? [String: Any] else { return nil }
        let arguments = command["arguments"] as? [[String: Any]] ?? []
        for argument in arguments {
            let names = argument["names"] as? [[String: Any]] ?? []
            guard names.contains(where: { $0["name"] as? String == "build-system" && $0["kind"] as? String == "long" }) else { continue }
            return (argument["defaultValue"] as? String).flatMap(BuildSystem.init(rawValue:))
        }
        return nil
    }

    /// The same from `swift build --help`, for a SwiftPM whose machine-readable help says nothing.
    ///
    /// swift-argument-parser prints a default in the option's help as `(default: <raw value>)`.
    /// 6.3.1 prints here: `--build-system <build-system>  Specify the build system to use.
    /// (default: native)`. It wraps the help at the terminal's width (`COLUMNS`, else 80): in
    /// 6.4 the line that ends in "(default: swiftbuild)" is exactly 80 columns, and narrower
    /// splits it (measured here with `COLUMNS=50`: "(default: native)" on a line of its own). The
    /// caller asks with a wide `COLUMNS`, and the option's paragraph is read with its lines joined.
    /// `swift --version` names the compiler, not the build system. Nil when the text says nothing
    /// readable (then the caller falls back on `.native`, which every SwiftPM has).
    static func defaultFromHelp(_ help: String) -> BuildSystem? {
        guard let option = help.range(of: "--build-system") else { return nil }
        // The default follows in the option's own paragraph, before the next option (a line
        // that starts, after its indent, with "-"); wrapped lines are indented further.
        var paragraph: [Substring] = []
        for (index, line) in help[option.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if index > 0, line.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("-") { break }
            paragraph.append(line)
        }
        let joined = paragraph.joined(separator: " ").split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
        guard let start = joined.range(of: "(default: ") else { return nil }
        let value = joined[start.upperBound...].prefix { $0 != ")" }
        return BuildSystem(rawValue: value.trimmingCharacters(in: .whitespaces))
    }
}
