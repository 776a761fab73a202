import Foundation

/// A test process that ended before Swift Testing started its run: no test ran, so the learner's
/// code is not to blame, and nothing can be graded.
///
/// On macOS the grader runs the suites through `swift test`, which exits 1 when it cannot start
/// or run its test helper, after printing why (swift-package-manager swift-6.3.1-RELEASE,
/// Sources/Commands/SwiftTestCommand.swift, `test(at:)`: a thrown error is emitted and the result
/// is `.failure`; any exit status but 0 is too). Read as an early exit, that would tell every
/// learner that their code called exit().
enum RunNotStarted {
    /// Lines of the log shown with the error.
    static let shownLines = 15

    /// The error for a run of `command` that ended as `termination` before its run started.
    static func error(_ termination: Termination, command: [String], log: URL, layout: KataLayout) -> GraderError {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).suffix(shownLines)
        let tail = lines.isEmpty ? L("(the log is empty)", "（日志是空的）") : lines.joined(separator: "\n")
        let ending: String = switch termination {
        case .signalled(let signal): L("was killed by signal \(signal)", "被信号 \(signal) 终止")
        case .exited(let code), .exitedEarly(let code): L("exited with status \(code)", "以状态 \(code) 退出")
        default: "\(termination)"
        }
        let name = URL(fileURLWithPath: command.first ?? "").lastPathComponent
        return GraderError.cannotRun(
            L("The test process (\(name)) \(ending) before its test run started: no check ran, so nothing could be graded, and this says nothing about your code. The end of its log (\(layout.relative(log))):",
              "测试进程（\(name)）在测试运行开始之前就\(ending)了：没有任何检查运行过，所以无法评分，这也和你的代码无关。日志末尾（\(layout.relative(log))）：")
            + "\n" + tail)
    }
}

extension Termination {
    /// It exited or was killed by a signal, not by the grader (a deadline, Ctrl-C, an output
    /// limit, the stop after a finished run).
    var endedByItself: Bool {
        switch self {
        case .exited, .exitedEarly, .signalled: true
        default: false
        }
    }
}
