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

    /// The build system SwiftPM uses when told nothing, as `swift build --help` reports it.
    ///
    /// SwiftPM declares the option with a default value (`Options.swift`, `BuildOptions`:
    /// `@Option(name: .customLong("build-system")) var _buildSystem: BuildSystemProvider.Kind =
    /// .native` in 6.2 and 6.3, `= .swiftbuild` on 6.4's branch), and swift-argument-parser prints
    /// a default in the option's help as `(default: <raw value>)`. 6.3.1 prints here:
    /// `--build-system <build-system>  Specify the build system to use. (default: native)`. The
    /// help text is the one place SwiftPM states its default without building anything; `swift
    /// --version` names the compiler, not the build system. Returns nil when the text says
    /// nothing readable (then the caller falls back on `.native`, which every SwiftPM has).
    static func defaultFromHelp(_ help: String) -> BuildSystem? {
        guard let option = help.range(of: "--build-system") else { return nil }
        // The default follows in the option's own paragraph, before the next option.
        let rest = help[option.upperBound...]
        let paragraph = rest.range(of: "\n  -").map { rest[..<$0.lowerBound] } ?? rest
        guard let start = paragraph.range(of: "(default: ") else { return nil }
        let value = paragraph[start.upperBound...].prefix { $0 != ")" }
        return BuildSystem(rawValue: value.trimmingCharacters(in: .whitespaces))
    }
}
