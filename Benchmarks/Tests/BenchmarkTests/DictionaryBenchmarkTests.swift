import DictionaryBench
import Foundation
import KataBench
import Testing

/// A dictionary that sleeps in every read: the benchmark must rank it below the lock baseline
/// on read-heavy work. A property of the ordering, not a stopwatch threshold.
final class SlowReadDictionary: BenchDictionary, @unchecked Sendable {
    private let inner = LockDictionary()
    func value(for key: Int) -> Int? { usleep(50); return inner.value(for: key) }
    func set(_ value: Int, for key: Int) { inner.set(value, for: key) }
}

@Suite("Benchmarks")
struct DictionaryBenchmarkTests {
    @Test("A dictionary that sleeps in every read is slower than the NSLock baseline on read-heavy work")
    func slowReaderRanksBelowTheLock() {
        let report = DictionaryBenchmark.run(
            settings: BenchSettings(quick: true), yours: { SlowReadDictionary() },
            mixes: [DictionaryBenchmark.mixes[0]], threadCounts: [2], operations: 2_000)
        let series = report.workloads[0].series
        let yours = series.first { $0.isLearner }?.samples[0] ?? []
        let lock = series.first { $0.isBaseline }?.samples[0] ?? []
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        #expect(!yours.isEmpty && !lock.isEmpty)
        #expect(median(yours) < median(lock), "slow reader \(yours) vs NSLock \(lock) operations per second")
    }

    @Test("ThreadRace times the work of threads released together")
    func threadRaceTimesTheWork() {
        let seconds = ThreadRace.seconds(threads: 3) { _ in usleep(20_000) }
        #expect(seconds >= 0.02)
    }
}
