import Foundation

/// What a benchmark executable measured, as it hands it to `grader bench` (JSON in a file):
/// raw samples only; the grader computes medians, spreads and ratios and draws the charts.
public struct BenchReport: Codable, Equatable, Sendable {
    /// The exercise measured.
    public var exercise: String
    /// What the values are, e.g. "operations per second".
    public var unit: String
    /// True when a larger value is better (throughput), false for times.
    public var higherIsBetter: Bool
    /// How it was measured, in one or two sentences, printed next to the numbers.
    public var method: String
    public var workloads: [Workload]

    public init(exercise: String, unit: String, higherIsBetter: Bool, method: String, workloads: [Workload]) {
        self.exercise = exercise
        self.unit = unit
        self.higherIsBetter = higherIsBetter
        self.method = method
        self.workloads = workloads
    }

    public struct Workload: Codable, Equatable, Sendable {
        public var name: String
        public var description: String
        /// What the x values are ("threads", "concurrent downloads").
        public var xLabel: String
        public var x: [Int]
        public var series: [Series]

        public init(name: String, description: String, xLabel: String, x: [Int], series: [Series]) {
            self.name = name
            self.description = description
            self.xLabel = xLabel
            self.x = x
            self.series = series
        }
    }

    public struct Series: Codable, Equatable, Sendable {
        public var implementation: String
        /// The learner's code: highlighted.
        public var isLearner: Bool
        /// What the others are compared with (a ratio of 1.0).
        public var isBaseline: Bool
        /// For each x, the samples of the measured runs (warm-up excluded); empty where the
        /// implementation does not apply (a single-thread floor at 8 threads).
        public var samples: [[Double]]

        public init(implementation: String, isLearner: Bool = false, isBaseline: Bool = false, samples: [[Double]]) {
            self.implementation = implementation
            self.isLearner = isLearner
            self.isBaseline = isBaseline
            self.samples = samples
        }
    }

    /// Writes the report where `--output FILE` says (standard output without it).
    public func write(arguments: [String] = CommandLine.arguments) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(self)
        if let index = arguments.firstIndex(of: "--output"), index + 1 < arguments.count {
            try data.write(to: URL(fileURLWithPath: arguments[index + 1]), options: .atomic)
        } else {
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
    }
}

/// How long a benchmark runs: `--quick` for a few seconds, the default for steadier numbers.
public struct BenchSettings: Sendable {
    public var quick: Bool
    public var runs: Int { quick ? 3 : 5 }
    public var warmUps: Int { 1 }

    public init(arguments: [String] = CommandLine.arguments) {
        quick = arguments.contains("--quick")
    }

    public init(quick: Bool) { self.quick = quick }

    /// Runs `measure` `warmUps` times unmeasured, then `runs` times, and returns the samples.
    public func samples(_ measure: () -> Double) -> [Double] {
        for _ in 0..<warmUps { _ = measure() }
        return (0..<runs).map { _ in measure() }
    }
}
