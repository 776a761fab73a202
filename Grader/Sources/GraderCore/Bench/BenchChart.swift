import Foundation

/// An SVG chart per workload, drawn by the grader itself: a line per implementation, value
/// against x (thread count, limit), the learner's line thick and highlighted, with a legend.
public enum BenchChart {
    static let width = 720.0
    static let chartHeight = 300.0
    static let legendLine = 18.0
    static let margin = (left: 80.0, right: 20.0, top: 40.0, bottom: 50.0)
    static let palette = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#7f7f7f", "#17becf", "#bcbd22"]
    static let learnerColour = "#d62728"

    public static func render(_ summaries: [BenchSummary]) -> String {
        var blocks: [String] = []
        var y = 0.0
        for summary in summaries {
            for workload in summary.workloads {
                let (block, height) = chart(workload, summary: summary, top: y)
                blocks.append(block)
                y += height
            }
        }
        return """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(y))" viewBox="0 0 \(Int(width)) \(Int(y))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        \(blocks.joined(separator: "\n"))
        </svg>

        """
    }

    static func chart(_ workload: BenchSummary.Workload, summary: BenchSummary, top: Double) -> (String, Double) {
        let plot = (x: margin.left, y: top + margin.top, width: width - margin.left - margin.right, height: chartHeight - margin.top - margin.bottom)
        let values = workload.series.flatMap { $0.cells.compactMap { $0?.median } }
        let largest = (values.max() ?? 1) * 1.1
        func px(_ index: Int) -> Double {
            workload.x.count == 1 ? plot.x + plot.width / 2 : plot.x + plot.width * Double(index) / Double(workload.x.count - 1)
        }
        func py(_ value: Double) -> Double { plot.y + plot.height * (1 - value / max(largest, 1e-12)) }
        var parts: [String] = []
        parts.append(##"<text x="\##(plot.x)" y="\##(top + 22)" font-size="15" font-weight="bold">\##(escape("\(summary.exercise) — \(workload.name): \(summary.unit)"))</text>"##)
        parts.append(##"<line x1="\##(plot.x)" y1="\##(plot.y + plot.height)" x2="\##(plot.x + plot.width)" y2="\##(plot.y + plot.height)" stroke="black"/>"##)
        parts.append(##"<line x1="\##(plot.x)" y1="\##(plot.y)" x2="\##(plot.x)" y2="\##(plot.y + plot.height)" stroke="black"/>"##)
        for tick in 0...4 {
            let value = largest * Double(tick) / 4
            let y = py(value)
            parts.append(##"<line x1="\##(plot.x - 4)" y1="\##(y)" x2="\##(plot.x + plot.width)" y2="\##(y)" stroke="#dddddd"/>"##)
            parts.append(##"<text x="\##(plot.x - 8)" y="\##(y + 4)" text-anchor="end">\##(escape(BenchFormat.value(value)))</text>"##)
        }
        for (index, x) in workload.x.enumerated() {
            parts.append(##"<text x="\##(px(index))" y="\##(plot.y + plot.height + 18)" text-anchor="middle">\##(x)</text>"##)
        }
        parts.append(##"<text x="\##(plot.x + plot.width / 2)" y="\##(plot.y + plot.height + 36)" text-anchor="middle">\##(escape(workload.xLabel))</text>"##)
        var legendY = top + chartHeight
        for (number, series) in workload.series.enumerated() {
            let colour = series.isLearner ? learnerColour : palette[number % palette.count]
            let strokeWidth = series.isLearner ? 4 : 2
            let points = series.cells.enumerated().compactMap { index, cell in cell.map { "\(px(index)),\(py($0.median))" } }
            if points.count > 1 {
                parts.append(##"<polyline fill="none" stroke="\##(colour)" stroke-width="\##(strokeWidth)" points="\##(points.joined(separator: " "))"/>"##)
            }
            for point in points {
                let xy = point.split(separator: ",")
                parts.append(##"<circle cx="\##(xy[0])" cy="\##(xy[1])" r="\##(series.isLearner ? 5 : 3)" fill="\##(colour)"/>"##)
            }
            parts.append(##"<line x1="\##(plot.x)" y1="\##(legendY - 4)" x2="\##(plot.x + 24)" y2="\##(legendY - 4)" stroke="\##(colour)" stroke-width="\##(strokeWidth)"/>"##)
            parts.append(##"<text x="\##(plot.x + 32)" y="\##(legendY)"\##(series.isLearner ? ##" font-weight="bold""## : "")>\##(escape(series.implementation))</text>"##)
            legendY += legendLine
        }
        let height = chartHeight + legendLine * Double(workload.series.count) + 20
        return ("<g class=\"workload\">\n" + parts.joined(separator: "\n") + "\n</g>", height)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
