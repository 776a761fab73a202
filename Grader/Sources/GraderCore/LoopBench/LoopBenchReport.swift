import Foundation

/// What `grader loop-bench` measured: the machine, and one row per figure with every run's
/// seconds and the seconds of each phase. Rendered as Markdown (the README's timing table is made
/// from it) and as JSON.
public struct LoopBenchReport: Codable, Equatable, Sendable {
    public struct Machine: Codable, Equatable, Sendable {
        public var date: String
        public var cores: Int
        public var os: String
        public var toolchain: String
        public var buildSystem: String
        public var commit: String
        /// 1, 5 and 15 minutes.
        public var loadBefore: [Double]
        public var loadAfter: [Double]
    }

    public struct Row: Codable, Equatable, Sendable {
        public var id: String
        public var what: String
        /// One per run that gave a figure.
        public var samples: [Double]
        public var median: Double?
        public var lowest: Double?
        public var highest: Double?
        /// Each phase's median over the runs (a run without the phase counts 0), in the order
        /// the phases first came.
        public var phases: [Phase]
        /// Why a run gave no figure.
        public var failures: [String]

        public struct Phase: Codable, Equatable, Sendable {
            public var name: String
            public var median: Double
            public var samples: [Double]
        }

        public init(id: String, what: String, samples: [Double], phases runs: [[PhaseTimings.Phase]] = [], failures: [String] = []) {
            self.id = id
            self.what = what
            self.samples = samples
            self.failures = failures
            median = BenchSummary.median(samples)
            lowest = samples.min()
            highest = samples.max()
            phases = Self.phaseMedians(runs)
        }

        /// The phases of every run summed by name within the run, then the median per name.
        static func phaseMedians(_ runs: [[PhaseTimings.Phase]]) -> [Phase] {
            var names: [String] = []
            for run in runs { for phase in run where !names.contains(phase.name) { names.append(phase.name) } }
            return names.map { name in
                let samples = runs.map { $0.filter { $0.name == name }.reduce(0) { $0 + $1.seconds } }
                return Phase(name: name, median: BenchSummary.median(samples) ?? 0, samples: samples)
            }
        }
    }

    public var machine: Machine
    public var runs: Int
    public var rows: [Row]

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    static func seconds(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f s", value) : value >= 10 ? String(format: "%.1f s", value) : String(format: "%.2f s", value)
    }

    static func load(_ values: [Double]) -> String { values.map { String(format: "%.2f", $0) }.joined(separator: ", ") }

    public func markdown() -> String {
        var text = """
        ## The learner's loop, measured (`swift run grader loop-bench`)

        - date: \(machine.date)
        - machine: \(machine.cores) cores, \(machine.os); \(machine.toolchain)
        - build system: \(machine.buildSystem); the course at commit \(machine.commit), cloned into a temporary folder
        - load average (1, 5, 15 min): \(Self.load(machine.loadBefore)) before, \(Self.load(machine.loadAfter)) after
        - each figure: the median of \(runs) run\(runs == 1 ? "" : "s") (lowest–highest); each phase: its median, in seconds

        | what | median | lowest–highest | runs | phases (median) |
        | --- | ---: | --- | ---: | --- |

        """
        for row in rows {
            let median = row.median.map(Self.seconds) ?? "—"
            let range = row.lowest.flatMap { low in row.highest.map { Self.seconds(low) + "–" + Self.seconds($0) } } ?? "—"
            let phases = row.phases.filter { $0.median >= 0.005 }.map { "\($0.name) \(String(format: "%.2f", $0.median))" }.joined(separator: " · ")
            text += "| \(row.what) | \(median) | \(range) | \(row.samples.count) | \(phases.isEmpty ? "—" : phases) |\n"
        }
        let failures = rows.flatMap { row in row.failures.map { "- \(row.what): \($0)" } }
        if !failures.isEmpty { text += "\nRuns that gave no figure:\n\n" + failures.joined(separator: "\n") + "\n" }
        return text
    }
}
