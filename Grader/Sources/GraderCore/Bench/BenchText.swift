import Foundation

/// The terminal view of a benchmark: per workload, a table of medians with the spread and the
/// ratio to the baseline, and horizontal bars at the largest x (plain text on a pipe). The
/// benchmarks describe themselves in English; in Chinese their words come from the message
/// catalog (`MessageCatalog`), like the suites' messages.
enum BenchText {
    static func words(_ text: String) -> String { MessageCatalog.shown(text) }

    /// "4 threads" (in Chinese "4 个线程"); an API name (`maxConcurrent`) stays as it is.
    static func axis(_ x: Int, _ label: String) -> String {
        switch label {
        case "threads": L("\(x) threads", "\(x) 个线程")
        case "items": L("\(x) items", "\(x) 项")
        default: "\(x) \(label)"
        }
    }

    static func padded(_ text: String, _ width: Int) -> String { TextLayout.pad(text, to: width) }

    static func render(_ summary: BenchSummary, style: Style, barWidth: Int = 40) -> String {
        var lines = [style.bold("\(summary.exercise)" + L(": ", "：") + words(summary.unit)) + (summary.higherIsBetter ? L(" (higher is better)", "（越高越好）") : L(" (lower is better)", "（越低越好）"))]
        lines += TextReport.wrapped(L("How: ", "方法：") + words(summary.method), width: 100).map { style.dim($0) }
        for workload in summary.workloads {
            lines.append("")
            lines.append(style.bold(words(workload.name)) + " — " + words(workload.description) + (workload.baseline.map { L("; ratios to \($0)", "；比值以 \(words($0)) 为基准") } ?? ""))
            let nameWidth = min(36, max(14, workload.series.map { TextLayout.width(words($0.implementation)) }.max() ?? 14))
            let columnWidth = 22
            lines.append("  " + "".padding(toLength: nameWidth, withPad: " ", startingAt: 0)
                + workload.x.map { TextLayout.pad(axis($0, workload.xLabel), to: columnWidth, alignRight: true) }.joined())
            for series in workload.series {
                var line = "  " + padded(String(words(series.implementation).prefix(nameWidth)), nameWidth)
                for cell in series.cells {
                    guard let cell else { line += "—".leftPadded(columnWidth); continue }
                    var text = BenchFormat.value(cell.median)
                    if cell.relativeSpread >= 0.005 { text += String(format: " ±%.0f%%", cell.relativeSpread * 50) }
                    if let ratio = cell.ratioToBaseline, !series.isBaseline { text += " " + BenchFormat.ratio(ratio) }
                    line += text.leftPadded(columnWidth)
                }
                lines.append(series.isLearner ? style.bold(line) : line)
            }
            lines += bars(workload, style: style, width: barWidth)
        }
        return lines.joined(separator: "\n")
    }

    /// Bars at the largest x where anything was measured, scaled to the largest median.
    static func bars(_ workload: BenchSummary.Workload, style: Style, width: Int) -> [String] {
        guard let column = workload.x.indices.last(where: { index in workload.series.contains { index < $0.cells.count && $0.cells[index] != nil } })
        else { return [] }
        let values = workload.series.map { column < $0.cells.count ? $0.cells[column]?.median : nil }
        let largest = values.compactMap { $0 }.max() ?? 0
        guard largest > 0 else { return [] }
        var lines = [L("  at \(axis(workload.x[column], workload.xLabel)):", "  \(axis(workload.x[column], workload.xLabel))时：")]
        let nameWidth = min(36, max(14, workload.series.map { TextLayout.width(words($0.implementation)) }.max() ?? 14))
        for (series, value) in zip(workload.series, values) {
            guard let value else { continue }
            let length = max(1, Int((value / largest * Double(width)).rounded()))
            let bar = String(repeating: "█", count: length)
            lines.append("    " + padded(String(words(series.implementation).prefix(nameWidth)), nameWidth)
                + " " + (series.isLearner ? style.yellow(bar) : bar) + " " + BenchFormat.value(value))
        }
        return lines
    }
}
