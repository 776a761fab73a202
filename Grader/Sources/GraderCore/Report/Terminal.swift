import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Colour and live progress on a terminal; plain text otherwise or when `NO_COLOR` is set.
public struct Style: Sendable {
    public var colour: Bool
    public var live: Bool

    public init(colour: Bool, live: Bool) {
        self.colour = colour
        self.live = live
    }

    /// Decides from the environment: standard output a terminal, `NO_COLOR` unset, `TERM` not dumb.
    public static func detect() -> Style {
        let environment = ProcessInfo.processInfo.environment
        let terminal = isatty(STDOUT_FILENO) == 1 && environment["TERM"] != "dumb"
        return Style(colour: terminal && environment["NO_COLOR"] == nil, live: terminal)
    }

    public static let plain = Style(colour: false, live: false)

    func paint(_ text: String, _ code: String) -> String { colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
    public func green(_ text: String) -> String { paint(text, "32") }
    public func red(_ text: String) -> String { paint(text, "31") }
    public func yellow(_ text: String) -> String { paint(text, "33") }
    public func bold(_ text: String) -> String { paint(text, "1") }
    public func dim(_ text: String) -> String { paint(text, "2") }
}

/// Live progress lines on a terminal (rewritten in place), nothing otherwise.
public final class TerminalProgress: GradingProgress, @unchecked Sendable {
    let style: Style
    public init(style: Style) { self.style = style }

    public func building(_ mode: BuildMode, excluded: [String]) {
        show("Building \(mode.solutions ? "Solutions/" : "Exercises/")\(mode.sanitize ? " with ThreadSanitizer" : "")…")
    }

    public func running(_ exercise: String, repetition: Int, of total: Int) {
        show("Running \(exercise)Tests" + (total > 1 ? " (\(repetition)/\(total))" : "") + "…")
    }

    public func clear() { if style.live { FileHandle.standardOutput.write(Data("\r\u{1B}[2K".utf8)) } }

    func show(_ text: String) {
        guard style.live else { return }
        FileHandle.standardOutput.write(Data("\r\u{1B}[2K\(style.dim(text))".utf8))
    }
}
