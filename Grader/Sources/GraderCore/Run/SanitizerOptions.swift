import Foundation

/// `TSAN_OPTIONS` for a sanitized suite run.
enum SanitizerOptions {
    /// The options for reports written to `logPath`.`<pid>`, one file per process, or nil when the
    /// path cannot be quoted (it holds both kinds of quote).
    ///
    /// - `log_path`: exit tests capture their child's standard error, so reports go to files.
    ///   compiler-rt's flag parser (`sanitizer_flag_parser.cpp`) splits the options on space, `,`,
    ///   `:`, tab and newline, and dies on what is left of a value; a quoted value (`'…'` or
    ///   `"…"`) is kept whole. Paths with spaces ("Swift Course", iCloud's "Mobile Documents")
    ///   and with other scripts' characters (`学习`) must survive it.
    /// - `exitcode=0`: a report must not change a child's exit code, or the race shows up as a
    ///   failed check instead of as the data race it is.
    /// - `strip_env=0`: on Apple platforms the runtime removes itself from
    ///   `DYLD_INSERT_LIBRARIES` at start-up (`strip_env`, on by default there: compiler-rt
    ///   `sanitizer_flags.inc`, `sanitizer_mac.cpp`), and a child started with that environment
    ///   (Swift Testing's exit tests, `ExitTest.swift`) loads the sanitizer too late and aborts.
    ///   Linux accepts the flag and has nothing to strip.
    static func value(logPath: String) -> String? {
        guard let quote = ["\"", "'"].first(where: { !logPath.contains($0) }) else { return nil }
        return "log_path=\(quote)\(logPath)\(quote):exitcode=0:strip_env=0"
    }
}
