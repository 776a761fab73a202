import Foundation
import KataTestSupport
import Testing
import ThreadSafeDictionary

/// `d[k] = d[k]! + 1` is a read, then a write: two threads can read the same old value, and
/// one increment disappears, even when the read and the write are each protected.
@Suite("Lost updates", .exitIsAFailure)
struct LostUpdateTests {
    static let threads = 8
    static let incrementsPerThread = 2_000
    static let keys = ["alpha", "beta"]
    static let lingerEvery = 100

    @Test("Increments through withValue from 8 threads at once are never lost")
    func incrementsAreNeverLost() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "withValue(forKey:_:) under contention")
            LostUpdateTests.incrementFromManyThreads()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "withValue(forKey:_:) under contention",
            crashHint: "A crash here usually means two threads changed the storage at once: withValue must hold exclusive access (a barrier write) for the whole read-modify-write.")
    }

    static func incrementFromManyThreads() {
        let dictionary = ThreadSafeDictionary<String, Int>()
        ThreadGang.run(threads, in: "withValue(forKey:_:) under contention") { index in
            for step in 0..<incrementsPerThread {
                let key = keys[(index + step) % keys.count]
                if index == 0 && step % lingerEvery == 0 {
                    // A slow update: it reads, pauses, then writes. If the other threads' updates
                    // are not kept out meanwhile (no exclusion, or a get followed by a set), the
                    // ones that land in the pause are overwritten: lost, every time.
                    dictionary.withValue(forKey: key) { value in
                        let old = value ?? 0
                        usleep(200)
                        value = old + 1
                    }
                } else {
                    dictionary.withValue(forKey: key) { $0 = ($0 ?? 0) + 1 }
                }
            }
        }
        let expected = threads * incrementsPerThread / keys.count
        for key in keys {
            let actual = dictionary[key]
            #expect(
                actual == expected,
                "After \(threads) threads made \(threads * incrementsPerThread) increments with withValue, \"\(key)\" holds \(actual.map(String.init) ?? "nil"), expected \(expected). \(actual == nil ? "withValue must keep what its body leaves in the value." : "Increments were lost: the read and the write must happen inside one exclusive access, not as a get followed by a set.")")
        }
    }
}
