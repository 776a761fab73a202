import Foundation
import KataTestSupport
import Testing
import ThreadSafeDictionary

/// Swift's Dictionary is not thread-safe: one thread growing or rehashing the storage while
/// another reads it corrupts memory. Unsynchronized, this check segfaults in practically every run,
/// so it runs isolated in a child process and the crash is reported as a failed check.
@Suite("Memory safety", .exitIsAFailure)
struct MemorySafetyTests {
    static let threads = 6
    static let operationsPerThread = 3_000
    static let keysPerThread = 16

    @Test("Mixed set, remove, read, count and snapshot from 6 threads neither crash nor lose entries")
    func mixedOperationsAreMemorySafe() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "mixed operations from 6 threads")
            MemorySafetyTests.hammerFromManyThreads()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "mixed operations from 6 threads",
            crashHint: "A Dictionary changed by one thread while another reads it corrupts memory. Every access needs protection; writes must be exclusive. A barrier on a global queue is ignored: use a private concurrent queue.")
    }

    static func key(_ thread: Int, _ slot: Int) -> Int { thread * 1_000 + slot }

    static func hammerFromManyThreads() {
        let dictionary = ThreadSafeDictionary<Int, Int>()
        ThreadGang.run(threads, in: "mixed operations from 6 threads") { thread in
            var random = SystemRandomNumberGenerator()
            for step in 0..<operationsPerThread {
                let slot = step % keysPerThread
                switch Int.random(in: 0..<6, using: &random) {
                case 0, 1: dictionary[key(thread, slot)] = step
                case 2: dictionary.removeValue(forKey: key(thread, slot))
                case 3: _ = dictionary[key(Int.random(in: 0..<threads, using: &random), slot)]
                case 4: _ = dictionary.count + (dictionary.isEmpty ? 1 : 0)
                default: _ = dictionary.snapshot().count
                }
            }
            // Each thread leaves a known final value in each of its own keys.
            for slot in 0..<keysPerThread {
                dictionary[key(thread, slot)] = -slot
            }
        }
        var missing: [Int] = []
        for thread in 0..<threads {
            for slot in 0..<keysPerThread where dictionary[key(thread, slot)] != -slot {
                missing.append(key(thread, slot))
            }
        }
        #expect(
            missing.isEmpty,
            "After the threads finished, \(missing.count) of \(threads * keysPerThread) keys did not hold the last value their thread wrote (first: \(missing.first.map(String.init) ?? "-")). Writes must be kept, and no write may undo another.")
        #expect(dictionary.count == threads * keysPerThread, "count should be \(threads * keysPerThread) at the end, got \(dictionary.count).")
    }
}
