import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads single keys from a terminal without waiting (raw mode, restored on `close()`), or whole
/// lines ("h", "hint", "q", "quit") when standard input is not a terminal.
final class KeyReader {
    enum Command { case hint, quit }

    private var saved = termios()
    private let isTerminal: Bool
    private var line = ""

    init() {
        isTerminal = isatty(STDIN_FILENO) == 1
        let flags = fcntl(STDIN_FILENO, F_GETFL)
        _ = fcntl(STDIN_FILENO, F_SETFL, flags | O_NONBLOCK)
        guard isTerminal else { return }
        tcgetattr(STDIN_FILENO, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
    }

    /// The command typed since the last call, if any.
    func poll() -> Command? {
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) == 1 {
            let character = Character(UnicodeScalar(byte))
            if isTerminal {
                if character == "h" { return .hint }
                if character == "q" { return .quit }
                continue
            }
            if character != "\n" { line.append(character); continue }
            defer { line = "" }
            switch line.trimmingCharacters(in: .whitespaces).lowercased() {
            case "h", "hint": return .hint
            case "q", "quit": return .quit
            default: continue
            }
        }
        return nil
    }

    func close() {
        let flags = fcntl(STDIN_FILENO, F_GETFL)
        _ = fcntl(STDIN_FILENO, F_SETFL, flags & ~O_NONBLOCK)
        if isTerminal { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
    }
}
