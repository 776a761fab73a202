import Foundation
import KataBench

/// Medians, spreads and ratios of a benchmark's raw samples: what the table, the bars, the chart
/// and `--json` show.
public struct BenchSummary: Codable, Equatable, Sendable {
    public struct Cell: Codable, Equatable, Sendable {
        public var median: Double
        public var lowest: Double
        public var highest: Double
        /// median ÷ the baseline's median at the same x (nil where either is missing).
        public var ratioToBaseline: Double?
        /// (highest − lowest) ÷ median: how much the runs disagree.
        public var relativeSpread: Double { median > 0 ? (highest - lowest) / median : 0 }
    }

    public struct Series: Codable, Equatable, Sendable {
        public var implementation: String
        public var isLearner: Bool
        public var isBaseline: Bool
        /// One per x; nil where the implementation was not measured.
        public var cells: [Cell?]
        public var samples: [[Double]]
    }

    public struct Workload: Codable, Equatable, Sendable {
        public var name: String
        public var description: String
        public var xLabel: String
        public var x: [Int]
        public var baseline: String?
        public var series: [Series]
    }

    public var exercise: String
    public var unit: String
    public var higherIsBetter: Bool
    public var method: String
    public var workloads: [Workload]

    public init(_ report: BenchReport) {
        exercise = report.exercise
        unit = report.unit
        higherIsBetter = report.higherIsBetter
        method = report.method
        workloads = report.workloads.map { workload in
            let baseline = workload.series.first(where: \.isBaseline)
            let baselineMedians = baseline?.samples.map(Self.median)
            return Workload(
                name: workload.name, description: workload.description, xLabel: workload.xLabel, x: workload.x,
                baseline: baseline?.implementation,
                series: workload.series.map { series in
                    Series(
                        implementation: series.implementation, isLearner: series.isLearner, isBaseline: series.isBaseline,
                        cells: series.samples.enumerated().map { index, samples in
                            guard let median = Self.median(samples) else { return nil }
                            let reference = baselineMedians.flatMap { index < $0.count ? $0[index] : nil }
                            return Cell(median: median, lowest: samples.min() ?? median, highest: samples.max() ?? median,
                                        ratioToBaseline: reference.flatMap { $0 > 0 ? median / $0 : nil })
                        },
                        samples: series.samples)
                })
        }
    }

    /// The middle value (the mean of the two middle ones for an even count); nil for none.
    public static func median(_ values: [Double]) -> Double? {
        let finite = values.filter(\.isFinite).sorted()
        guard !finite.isEmpty else { return nil }
        let middle = finite.count / 2
        return finite.count % 2 == 1 ? finite[middle] : (finite[middle - 1] + finite[middle]) / 2
    }
}

/// Numbers short enough for a table: 23.1 M, 412 k, 1.93, 0.012.
enum BenchFormat {
    static func value(_ value: Double) -> String {
        switch abs(value) {
        case 1e9...: String(format: "%.1f G", value / 1e9)
        case 1e6...: String(format: "%.1f M", value / 1e6)
        case 1e4...: String(format: "%.0f k", value / 1e3)
        case 100...: String(format: "%.0f", value)
        case 1...: String(format: "%.2f", value)
        default: String(format: "%.3f", value)
        }
    }

    static func ratio(_ ratio: Double) -> String { String(format: "%.2f×", ratio) }
}
