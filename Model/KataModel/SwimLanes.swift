/// Draws a schedule as swim lanes: one column per logical thread, one row per step, the last
/// steps before the end, then what went wrong. The frame is in English and Chinese; the code
/// (operation names, file:line) stays code.
public enum SwimLanes {
    /// The language of the frame: both side by side (the maintainers' tool), or one (the grader's
    /// `--lang`).
    public enum Language: String, Sendable {
        case both, english = "en", chinese = "zh-Hans"

        func lines(_ en: String, _ zh: String) -> [String] {
            switch self {
            case .both: [en, zh]
            case .english: [en]
            case .chinese: [zh]
            }
        }

        func words(_ en: String, _ zh: String) -> String {
            switch self {
            case .both: "\(en) / \(zh)"
            case .english: en
            case .chinese: zh
            }
        }
    }

    /// `replayLine: false` leaves out the line with the schedule's number and code (the grader
    /// prints its own command instead).
    public static func render(_ failure: Explorer.Failure, window: Int = 24, width: Int = 60, language: Language = .both, replayLine: Bool = true) -> String {
        var header = language.lines(
            "The interleaving that broke it (schedule \(failure.number), \(failure.schedule.strategyName), found after \(failure.tried) schedule\(failure.tried == 1 ? "" : "s"))",
            "导致失败的交错执行（调度 \(failure.number)，\(chinese(failure.schedule.strategyName))，第 \(failure.tried) 次调度发现）")
            + [language == .chinese ? "重放：调度 \(failure.number)，或决策 code:\(failure.code)"
                : language.words("Replay", "重放") + ": schedule \(failure.number), or decisions code:\(failure.code)"]
        if !replayLine { header.removeLast() }
        return render(failure.schedule, header: header, window: window, width: width, language: language)
    }

    public static func render(_ schedule: Schedule, header: [String] = [], window: Int = 24, width: Int = 60, language: Language = .both) -> String {
        // A failed property ends the picture where it failed; a deadlock, where everyone stopped.
        let end = schedule.violationEvent.map { $0 + 1 } ?? schedule.events.count
        // The check's own joins are left out: the lanes show the code under test.
        let relevant = schedule.events[..<end].filter { !$0.harness }
        let shown = Array(relevant.suffix(window))
        var columns: [Int] = []
        for event in shown where !columns.contains(event.thread) { columns.append(event.thread) }
        columns.sort()
        let names = columns.map { column -> String in
            let name = schedule.threadNames.indices.contains(column) ? schedule.threadNames[column] : "thread \(column)"
            return language == .chinese ? ThreadNames.chinese(name) : name
        }
        // Each column as wide as its longest cell, up to `width`; a longer cell loses its end.
        let widths = columns.enumerated().map { index, thread in
            let longest = shown.filter { $0.thread == thread }.map { displayWidth(cellText($0, language)) }.max() ?? 0
            return max(displayWidth(names[index]), min(width, longest))
        }

        var lines = header
        let skipped = relevant.count - shown.count
        if skipped > 0 {
            lines.append("… " + language.words("\(skipped) earlier step\(skipped == 1 ? "" : "s") not shown", "前面 \(skipped) 步未显示"))
        }
        lines += rows(language == .chinese ? "步骤" : "step", names, widths)
        lines.append(" " + String(repeating: "-", count: 5) + widths.map { "+" + String(repeating: "-", count: $0 + 2) }.joined())
        for event in shown {
            let cell = cellText(event, language)
            let cells = columns.map { $0 == event.thread ? cell : "" }
            lines += rows("\(event.step)", cells, widths)
        }
        lines.append(contentsOf: verdict(schedule.outcome, language: language))
        return lines.joined(separator: "\n")
    }

    /// The learner's line first: a long cell loses its end, never the line. Words in Chinese
    /// only for `.chinese`: side by side, both languages would not fit a column.
    private static func cellText(_ event: Scheduler.Event, _ language: Language) -> String {
        let text = language == .chinese ? event.zh ?? chineseCall(event.text) : event.text
        return event.site.map { "\($0)  \(text)" } ?? text
    }

    /// "lock() on NSLock 1" → "对 NSLock 1 调用 lock()"; "async on 'session' → block 1" →
    /// "对 'session' 调用 async → 块 1": the call stays code, the words around it follow the frame.
    static func chineseCall(_ text: String) -> String {
        if let match = text.firstMatch(of: #/^end of sync on (.+)$/#) { return "对 \(match.1) 的 sync 结束" }
        if let match = text.firstMatch(of: #/^starts the block from (.+)$/#) { return "开始运行来自 \(match.1) 的块" }
        if text == "waits for every other thread" { return "等待其他所有线程" }
        guard let match = text.firstMatch(of: #/^(\S+) on (.+?)(?: \((count|value) (-?\d+)\))?(?: → block (\d+))?$/#) else { return text }
        let counter = match.3.map { kind in "（\(kind == "count" ? "计数" : "值") \(match.4 ?? "")）" } ?? ""
        let block = match.5.map { " → 块 \($0)" } ?? ""
        return "对 \(match.2) 调用 \(match.1)\(counter)\(block)"
    }

    /// The strategy's name in Chinese ("random walk", "PCT, 2 change points").
    static func chinese(_ strategy: String) -> String {
        if strategy == "random walk" { return "随机游走" }
        if strategy == "replay" { return "重放" }
        if strategy.hasPrefix("PCT, "), let count = strategy.dropFirst(5).split(separator: " ").first {
            return "PCT，\(count) 个变更点"
        }
        return strategy
    }

    /// One step: a cell wider than its column goes on over the next lines of the same step, so
    /// that what an operation did ("wakes consumer 1", "nobody waits") is never cut off.
    private static func rows(_ first: String, _ cells: [String], _ widths: [Int]) -> [String] {
        let wrapped = zip(cells, widths).map { wrap($0, to: $1) }
        let height = wrapped.map(\.count).max() ?? 1
        return (0..<height).map { index in
            var line = " " + pad(index == 0 ? first : "", 5)
            for (parts, width) in zip(wrapped, widths) {
                line += "| " + pad(index < parts.count ? parts[index] : "", width) + " "
            }
            return line.trimmingTrailingSpaces()
        }
    }

    /// `text` in lines of at most `width` columns, broken at spaces where it can be (a word
    /// longer than a line is cut); the lines after the first are indented by two.
    static func wrap(_ text: String, to width: Int) -> [String] {
        guard displayWidth(text) > width, width > 4 else { return [text] }
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
            let candidate = line.isEmpty ? word : line + " " + word
            if line.isEmpty || displayWidth(candidate) <= width {
                line = candidate
            } else {
                lines.append(line)
                line = "  " + word
            }
            while displayWidth(line) > width {
                var kept = ""
                for character in line {
                    guard displayWidth(kept + String(character)) <= width else { break }
                    kept.append(character)
                }
                lines.append(kept)
                line = "  " + String(line.dropFirst(kept.count))
            }
        }
        if !line.allSatisfy({ $0 == " " }) { lines.append(line) }
        return lines
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        let shown = displayWidth(text)
        return shown >= width ? text : text + String(repeating: " ", count: width - shown)
    }

    /// Columns a terminal gives the text: two for each CJK character (the Chinese frame's "步骤").
    static func displayWidth(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { width, scalar in
            let wide = (0x1100...0x115F).contains(scalar.value) || (0x2E80...0xA4CF).contains(scalar.value)
                || (0xAC00...0xD7A3).contains(scalar.value) || (0xF900...0xFAFF).contains(scalar.value)
                || (0xFE30...0xFE4F).contains(scalar.value) || (0xFF00...0xFF60).contains(scalar.value)
            return width + (wide ? 2 : 1)
        }
    }

    /// The property in words, in both languages.
    public static func verdict(_ outcome: Scheduler.Outcome, language: Language = .both) -> [String] {
        switch outcome {
        case .completed:
            return ["✓ " + language.words("every thread finished and every check held", "所有线程都已结束，所有检查都成立")]
        case .violation(let text), .deadlock(let text):
            return language.lines("✗ " + text.en, "✗ " + text.zh)
        case .stepLimit(let steps):
            return language.lines("✗ more than \(steps) steps: a thread keeps calling without ever waiting (a spin?)",
                                  "✗ 超过 \(steps) 步：某个线程不停地调用却从不等待（自旋？）")
        case .stalled(let seconds):
            return language.lines("✗ no twin operation for \(Int(seconds)) s: a thread loops without locking or waiting, which the model cannot interleave",
                                  "✗ \(Int(seconds)) 秒内没有任何同步操作：某个线程在循环中既不加锁也不等待，模型无法在其中切换线程")
        }
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
