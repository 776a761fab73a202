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

    /// Sends what `print` has buffered. On a pipe (`| tee`, an editor's output pane) standard
    /// output is buffered by blocks of kilobytes, so a screen printed and then waited on (watch
    /// mode's, or the points before the race check) would otherwise not appear until much later.
    public static func flush() {
        fflush(nil)
    }

    func paint(_ text: String, _ code: String) -> String { colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
    public func green(_ text: String) -> String { paint(text, "32") }
    public func red(_ text: String) -> String { paint(text, "31") }
    public func yellow(_ text: String) -> String { paint(text, "33") }
    public func bold(_ text: String) -> String { paint(text, "1") }
    public func dim(_ text: String) -> String { paint(text, "2") }
}

/// Live progress lines on a terminal (rewritten in place), nothing otherwise: what is being
/// built, or which check is running and for how long.
public final class TerminalProgress: GradingProgress, @unchecked Sendable {
    let style: Style
    private let lock = NSLock()
    private var lastLine = ""

    public init(style: Style) { self.style = style }

    public func building(_ mode: BuildMode, excluded: [String]) {
        let what = mode.variant.map { L("variant \($0)", "变体 \($0)") } ?? (mode.solutions ? "Solutions/" : "Exercises/")
        show(L("Building \(what)\(mode.sanitize ? " with ThreadSanitizer" : "")…", "正在构建 \(what)\(mode.sanitize ? "（ThreadSanitizer）" : "")…"))
    }

    public func running(_ checks: [(test: DeclaredTest, seconds: Double)]) {
        guard let (test, seconds) = checks.first else { return show(L("Running the suites…", "正在运行测试套件…")) }
        let exercise = test.id.components(separatedBy: "Tests.").first ?? ""
        let more = checks.count > 1 ? L(" (+\(checks.count - 1) more)", "（另有 \(checks.count - 1) 项）") : ""
        show("\(exercise): “\(test.displayName)” \(String(format: "%.1f", seconds)) s\(more)")
    }

    public func note(_ text: String) { show(text) }

    public func clear() {
        guard style.live else { return }
        lock.lock(); defer { lock.unlock() }
        lastLine = ""
        FileHandle.standardOutput.write(Data("\r\u{1B}[2K".utf8))
    }

    func show(_ text: String) {
        guard style.live else { return }
        lock.lock(); defer { lock.unlock() }
        let line = String(text.prefix(Self.width - 1))
        guard line != lastLine else { return }
        lastLine = line
        FileHandle.standardOutput.write(Data("\r\u{1B}[2K\(style.dim(line))".utf8))
    }

    /// The terminal's width, so that a progress line never wraps (a wrapped line cannot be
    /// rewritten in place).
    static var width: Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 { return Int(size.ws_col) }
        return 80
    }
}
