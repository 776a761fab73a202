import Foundation

/// The two sides of a data race as the learner reads them: which thread read or wrote, and where
/// in their own code, innermost frame first.
enum RaceReportText {
    /// One line per access and one per frame of the learner's code (the innermost only, unless
    /// `allFrames`); with `allFrames`, where ThreadSanitizer's whole report is.
    static func lines(_ finding: SanitizerFinding, allFrames: Bool) -> [String] {
        var lines: [String] = []
        for access in finding.accesses {
            lines.append(describe(access))
            let frames = allFrames ? access.ownFrames : Array(access.ownFrames.prefix(1))
            for frame in frames {
                // Linux prints mangled names, which say nothing to a learner: the Swift runtime's
                // demangler reads them; Apple platforms' are readable already.
                let readable = SwiftDemangler.demangle(frame.function)
                if frame.line == SanitizerFinding.Place.unknownLine {
                    lines.append(L("    \(frame.file) (ThreadSanitizer gave no line), in \(readable)",
                                   "    \(frame.file)（ThreadSanitizer 没有给出行号），在 \(readable) 中"))
                } else {
                    let function = frame.function.hasPrefix("$s") && readable == frame.function ? "" : "  " + readable
                    lines.append("    \(frame.file):\(frame.line)\(function)")
                }
            }
            if frames.isEmpty {
                lines.append(L("    (not in your code: in the course's or the toolchain's code that your code called)",
                               "    （不在你的代码里：在你的代码调用的课程代码或工具链代码里）"))
            }
        }
        if !finding.sameBaseName.isEmpty, let file = finding.file {
            lines.append(L("Note: ThreadSanitizer names files by their base name here; \(file) may also be \(finding.sameBaseName.joined(separator: ", ")).",
                           "注意：这里 ThreadSanitizer 只给出文件名；\(file) 也可能是 \(finding.sameBaseName.joined(separator: "、"))。"))
        }
        if allFrames, let folder = finding.reportFolder {
            lines.append(L("ThreadSanitizer's whole report (both stacks, every frame): \(folder)/",
                           "ThreadSanitizer 的完整报告（两个调用栈的每一帧）：\(folder)/"))
        }
        return lines
    }

    /// "Write of size 8 at 0x7b0c… by thread T2" → "Thread T2 writes:"; "Previous read … by main
    /// thread" → "The main thread read earlier:".
    static func describe(_ access: SanitizerFinding.Access) -> String {
        let what = access.what.lowercased()
        let earlier = what.hasPrefix("previous")
        let writes = what.contains("write") || what.contains("modifying")
        let thread = access.thread == "main thread" ? L("the main thread", "主线程")
            : access.thread.isEmpty ? L("a thread", "一个线程") : access.thread.replacingOccurrences(of: "thread ", with: L("thread ", "线程 "))
        switch (earlier, writes) {
        case (false, true): return L("\(thread.capitalizedFirst) writes:", "\(chineseSubject(thread))写入：")
        case (false, false): return L("\(thread.capitalizedFirst) reads:", "\(chineseSubject(thread))读取：")
        case (true, true): return L("\(thread.capitalizedFirst) wrote earlier, with nothing ordering the two:", "\(chineseSubject(thread))更早写入，两次访问之间没有任何同步：")
        case (true, false): return L("\(thread.capitalizedFirst) read earlier, with nothing ordering the two:", "\(chineseSubject(thread))更早读取，两次访问之间没有任何同步：")
        }
    }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
