import DictionaryBench
import KataBench
import ThreadSafeDictionary

/// Your dictionary, as the benchmark sees it.
final class YourDictionary: BenchDictionary, @unchecked Sendable {
    let dictionary = ThreadSafeDictionary<Int, Int>()
    func value(for key: Int) -> Int? { dictionary[key] }
    func set(_ value: Int, for key: Int) { dictionary[key] = value }
}

try DictionaryBenchmark.run(settings: BenchSettings(), yours: { YourDictionary() }).write()
