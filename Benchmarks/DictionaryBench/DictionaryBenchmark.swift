import Foundation
import KataBench

/// Read-heavy, mixed and write-heavy workloads at 1, 2, 4 and 8 threads, for the learner's
/// dictionary and the baselines, in operations per second.
public enum DictionaryBenchmark {
    public struct Mix: Sendable {
        public var name: String
        public var readPercent: Int
    }

    public static let mixes = [
        Mix(name: "read-heavy", readPercent: 95),
        Mix(name: "mixed", readPercent: 50),
        Mix(name: "write-heavy", readPercent: 5),
    ]
    public static let threadCounts = [1, 2, 4, 8]
    static let keys = 64

    /// The implementations measured, the learner's first; `floor` only at one thread.
    public static func contenders(yours: @escaping @Sendable () -> any BenchDictionary)
        -> [(name: String, make: @Sendable () -> any BenchDictionary, isLearner: Bool, isBaseline: Bool, singleThreadOnly: Bool)] {
        [
            ("your ThreadSafeDictionary", yours, true, false, false),
            ("NSLock", { LockDictionary() }, false, true, false),
            ("serial queue", { SerialQueueDictionary() }, false, false, false),
            ("pthread_rwlock", { ReadWriteLockDictionary() }, false, false, false),
            ("concurrent queue + barrier", { BarrierQueueDictionary() }, false, false, false),
            ("plain Dictionary, 1 thread (floor)", { PlainDictionary() }, false, false, true),
        ]
    }

    /// Operations per second of `dictionary` under `mix` with `threads` threads doing
    /// `operations` operations in all.
    public static func throughput(_ dictionary: any BenchDictionary, mix: Mix, threads: Int, operations: Int) -> Double {
        for key in 0..<keys { dictionary.set(key, for: key) }
        let perThread = max(1, operations / threads)
        let seconds = ThreadRace.seconds(threads: threads) { thread in
            var random = FastRandom(seed: UInt64(thread + 1))
            var sink = 0
            for step in 0..<perThread {
                let key = random.next(below: keys)
                if random.next(below: 100) < mix.readPercent {
                    sink &+= dictionary.value(for: key) ?? 0
                } else {
                    dictionary.set(step, for: key)
                }
            }
            if sink == Int.min { print(sink) }  // keeps the reads from being optimized away
        }
        return Double(perThread * threads) / max(seconds, 1e-9)
    }

    /// How many operations a run of `contender` should do to last about `seconds`: contended GCD
    /// queues are a hundred times slower than an uncontended lock on Linux (futex traffic), so
    /// a fixed count would either time fast contenders in microseconds or slow ones for seconds.
    static func operations(lasting seconds: Double, _ measure: (Int) -> Double) -> Int {
        let probe = 2_000
        let perSecond = measure(probe)
        return min(400_000, max(probe, Int(perSecond * seconds)))
    }

    /// `operations` fixes the count of every run (for tests); otherwise each cell's count is
    /// chosen so that a run lasts about 20 ms (5 ms with `--quick`).
    public static func run(settings: BenchSettings, yours: @escaping @Sendable () -> any BenchDictionary,
                           mixes: [Mix] = mixes, threadCounts: [Int] = threadCounts, operations fixed: Int? = nil) -> BenchReport {
        let runSeconds = settings.quick ? 0.005 : 0.02
        let workloads = mixes.map { mix in
            BenchReport.Workload(
                name: mix.name, description: "\(mix.readPercent) % reads, \(100 - mix.readPercent) % writes, \(keys) keys",
                xLabel: "threads", x: threadCounts,
                series: contenders(yours: yours).map { contender in
                    BenchReport.Series(
                        implementation: contender.name, isLearner: contender.isLearner, isBaseline: contender.isBaseline,
                        samples: threadCounts.map { threads in
                            guard threads == 1 || !contender.singleThreadOnly else { return [] }
                            let measure = { (count: Int) in throughput(contender.make(), mix: mix, threads: threads, operations: count) }
                            let count = fixed ?? operations(lasting: runSeconds, measure)
                            return settings.samples { measure(count) }
                        })
                })
        }
        return BenchReport(
            exercise: "ThreadSafeDictionary", unit: "operations per second", higherIsBetter: true,
            method: "Each run does enough operations to last about \(Int(runSeconds * 1000)) ms (probed first), split between threads released together from a barrier; "
                + "\(settings.warmUps) warm-up run, then the median of \(settings.runs) runs (spread: lowest to highest). Release build.",
            workloads: workloads)
    }
}
