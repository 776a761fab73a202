import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import KataBench
import Testing
@testable import GraderCore

/// `grader bench`'s arithmetic and drawing: medians, spreads, ratios to the baseline, the
/// text table and bars, and the SVG chart.
@Suite("Benchmark statistics and charts")
struct BenchTests {
    static let report = BenchReport(
        exercise: "ThreadSafeDictionary", unit: "operations per second", higherIsBetter: true, method: "test",
        workloads: [BenchReport.Workload(
            name: "read-heavy", description: "95 % reads", xLabel: "threads", x: [1, 2],
            series: [
                .init(implementation: "yours <&>", isLearner: true, samples: [[30, 10, 20], [40, 40, 40, 40]]),
                .init(implementation: "NSLock", isBaseline: true, samples: [[10, 10, 10], [20, 20]]),
                .init(implementation: "floor", samples: [[50], []]),
            ])])

    @Test("Median of odd and even counts, spread and ratio to the baseline at the same x")
    func statistics() throws {
        #expect(BenchSummary.median([3, 1, 2]) == 2)
        #expect(BenchSummary.median([4, 1, 3, 2]) == 2.5)
        #expect(BenchSummary.median([]) == nil)
        #expect(BenchSummary.median([.infinity, 5]) == 5, "a run that never finished is not a sample")
        let summary = BenchSummary(Self.report)
        let yours = summary.workloads[0].series[0]
        #expect(yours.cells[0]?.median == 20)
        #expect(yours.cells[0]?.relativeSpread == 1.0)
        #expect(yours.cells[0]?.ratioToBaseline == 2.0)
        #expect(yours.cells[1]?.ratioToBaseline == 2.0)
        #expect(summary.workloads[0].series[2].cells[1] == nil, "not measured at 2 threads")
        #expect(summary.workloads[0].baseline == "NSLock")
    }

    @Test("The table shows medians, ratios and bars, plain on a pipe")
    func text() {
        let text = BenchText.render(BenchSummary(Self.report), style: .plain, barWidth: 10)
        #expect(text.contains("read-heavy — 95 % reads; ratios to NSLock"))
        #expect(text.contains("20.00 ±50% 2.00×"))
        #expect(text.contains("at 2 threads:"))
        #expect(text.contains("██████████ 40.00"), "the largest value gets the whole bar")
        #expect(text.contains("█████ 20.00"))
        #expect(!text.contains("\u{1B}["))
    }

    @Test("The SVG has a line per implementation, the learner's highlighted, text escaped")
    func chart() throws {
        let svg = BenchChart.render([BenchSummary(Self.report)])
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 2, "the floor has one point, so no line")
        #expect(svg.contains("stroke=\"\(BenchChart.learnerColour)\" stroke-width=\"4\""))
        #expect(svg.contains("yours &lt;&amp;&gt;"))
        #expect(!svg.contains("yours <&>"))
        // Well-formed XML.
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "the SVG must be well-formed XML: \(parser.parserError.map(String.init(describing:)) ?? "")")
    }
}
