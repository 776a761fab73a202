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
    static let lingeringUpdates = 10
    static let lingerNanoseconds: UInt64 = 3_000_000
    static let maxIncrementsPerThread = 100_000

    @Test("Increments through withValue from 8 threads at once are never lost")
    func incrementsAreNeverLost() async {
        guard EntriesKept.orRecord(checking: "withValue under contention") else { return }
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
        let made = Locked(0)  // increments the fast threads have finished
        let lingeringDone = Locked(false)
        ThreadGang.run(threads, in: "withValue(forKey:_:) under contention", progress: { made.current }) { index in
            if index == 0 {
                for step in 0..<lingeringUpdates {
                    // A slow update: it reads, then waits until another thread finishes an
                    // increment (which only code without exclusion allows) or 3 ms pass, then
                    // writes. Without exclusion (or with a get followed by a set), the increments
                    // that land in the pause are overwritten: lost, every time.
                    dictionary.withValue(forKey: keys[step % keys.count]) { value in
                        let old = value ?? 0
                        let seen = made.current
                        let end = DispatchTime.now().uptimeNanoseconds + lingerNanoseconds
                        while made.current == seen && DispatchTime.now().uptimeNanoseconds < end { usleep(50) }
                        value = old + 1
                    }
                }
                lingeringDone.withLock { $0 = true }
            } else {
                // Fast updates, kept up until the slow ones are over, so that some are always
                // waiting to get in while a slow one is inside.
                var step = 0
                while step < incrementsPerThread || (!lingeringDone.current && step < maxIncrementsPerThread) {
                    dictionary.withValue(forKey: keys[(index + step) % keys.count]) { $0 = ($0 ?? 0) + 1 }
                    made.withLock { $0 += 1 }
                    step += 1
                }
            }
        }
        let expected = made.current + lingeringUpdates
        let stored = keys.map { dictionary[$0] }
        let total = stored.reduce(0) { $0 + ($1 ?? 0) }
        #expect(
            total == expected,
            "After \(threads) threads made \(expected) increments with withValue, the keys hold \(total) in total. \(stored.contains(nil) ? "withValue must keep what its body leaves in the value." : "\(expected - total) increments were lost: the read and the write must happen inside one exclusive access (a barrier), not as a get followed by a set.")")
    }
}
