import Foundation
import KataTestSupport
import Testing
import ThreadSafeDictionary

/// Swift's Dictionary is not thread-safe: one thread growing or rehashing the storage while
/// another reads it corrupts memory. Unsynchronized, this check often segfaults, so it runs
/// isolated in a child process and the crash is reported as a failed check.
///
/// A crash is luck, though (on two busy cores, threads may take turns instead of colliding), so the
/// check does not rely on it: one thread lingers inside `mutate` until another thread finishes an
/// operation, and looks whether the entries changed under it, and in rounds every thread removes and re-inserts its own keys at the same
/// moment and reads them back. Unprotected writes are caught by those in every run.
@Suite("Memory safety", .exitIsAFailure)
struct MemorySafetyTests {
    static let threads = 6
    static let operationsPerThread = 3_000
    static let keysPerThread = 16
    static let writeRounds = 8
    static let lingeringWrites = 8
    static let lingerNanoseconds: UInt64 = 5_000_000
    static let maxOperationsPerThread = 200_000
    /// Values the threads have finished storing. The lingering writer waits for it to move, and
    /// both deadlines watch it: on a loaded machine the operations may take many seconds, and a
    /// right dictionary that is slow is not a deadlock.
    static let valuesStored = Locked(0)
    /// How long a thread waits at the round barrier for the others, and the isolated check in all.
    /// A deadlock is found sooner, by the deadlines that watch `valuesStored` and the rounds.
    static let patience = 60.0

    @Test("Mixed set, remove, get, count, snapshot and mutate from 6 threads neither crash nor lose entries, and a dictionary let go on another thread is freed with its values")
    func mixedOperationsAreMemorySafe() async {
        guard EntriesKept.orRecord(checking: "mixed operations from 6 threads") else { return }
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(quiet: Watchdog.defaultSeconds, limit: MemorySafetyTests.patience, in: "mixed operations from 6 threads",
                                progress: { MemorySafetyTests.valuesStored.current })
            MemorySafetyTests.hammerFromManyThreads()
            LastReferenceLetGo.dictionaryAndValuesAreFreed(progress: { MemorySafetyTests.valuesStored.withLock { $0 += 1 } })
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "mixed operations from 6 threads",
            crashHint: "A Dictionary changed by one thread while another reads it corrupts memory. Every access needs protection; writes must be exclusive. A barrier on a global queue is ignored: use a private concurrent queue. The check ends by letting a dictionary go on another thread: a crash there comes from its deinit, or from what it frees.")
    }

    /// xorshift64: fast and good enough to mix the operations.
    struct QuickRandom: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
    }

    static func key(_ thread: Int, _ slot: Int) -> Int { thread * 1_000 + slot }
    static func value(_ round: Int, _ slot: Int) -> Int { -(round * 100 + slot) }

    static func hammerFromManyThreads() {
        let dictionary = ThreadSafeDictionary<Int, Int>()
        // Realigns the threads now and then: on two cores, a thread left alone finishes its work
        // within one time slice and never meets the others.
        let together = StartBarrier(parties: threads)
        let lostWrites = Locked(0)
        let changedInsideMutate = Locked(0)
        let progress = valuesStored
        let lingeringDone = Locked(false)
        let returned = ThreadGang.run(threads, limit: patience, in: "mixed operations from 6 threads", progress: { together.rounds + progress.current }) { thread in
            // A cheap generator: the system one makes a system call per number, and the threads
            // would spend their time there instead of inside the dictionary.
            var random = QuickRandom(seed: UInt64(thread + 1))
            // A snapshot kept alive shares the dictionary's storage, so the next write must copy
            // it (copy-on-write): unprotected, two threads copying and replacing it at once lose
            // writes or free it twice.
            var pinned: [Int: Int] = [:]
            guard together.arrive(seconds: patience) else { return }
            if thread == 0 {
                // A writer that lingers inside mutate until another thread finishes storing a value
                // (which only code without exclusion allows) or 5 ms pass: nobody may change the
                // entries meanwhile. The other threads keep going until it is done, so some are
                // always trying to get in.
                for _ in 0..<lingeringWrites {
                    dictionary.mutate { entries in
                        let before = entries
                        let seen = progress.current
                        let end = DispatchTime.now().uptimeNanoseconds + lingerNanoseconds
                        while progress.current == seen && DispatchTime.now().uptimeNanoseconds < end { usleep(50) }
                        if entries != before { changedInsideMutate.withLock { $0 += 1 } }
                    }
                }
                lingeringDone.withLock { $0 = true }
            } else {
                var step = 0
                while step < operationsPerThread || (!lingeringDone.current && step < maxOperationsPerThread) {
                    let slot = step % keysPerThread
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0, 1:
                        dictionary[key(thread, slot)] = step
                        progress.withLock { $0 += 1 }
                    case 2: dictionary.removeValue(forKey: key(thread, slot))
                    case 3: _ = dictionary[key(Int.random(in: 0..<threads, using: &random), slot)]
                    case 4: _ = dictionary.count + (dictionary.isEmpty ? 1 : 0)
                    default: pinned = dictionary.snapshot()
                    }
                    step += 1
                }
            }
            // Then rounds in which every thread removes its own keys, inserts them again at the same
            // moment as the others, and reads them back once all have written: an insertion that
            // another one undid is seen at once.
            for round in 1...writeRounds {
                guard together.arrive(seconds: patience) else { return }
                for slot in 0..<keysPerThread { dictionary.removeValue(forKey: key(thread, slot)) }
                guard together.arrive(seconds: patience) else { return }
                for slot in 0..<keysPerThread {
                    if slot % 2 == 0 { pinned = dictionary.snapshot() }
                    dictionary[key(thread, slot)] = value(round, slot)
                }
                guard together.arrive(seconds: patience) else { return }
                let lost = (0..<keysPerThread).filter { dictionary[key(thread, $0)] != value(round, $0) }.count
                if lost > 0 { lostWrites.withLock { $0 += lost } }
                progress.withLock { $0 += 1 }
            }
            withExtendedLifetime(pinned) {}
        }
        // A thread stuck in the dictionary has been reported; what the others left is no evidence.
        guard returned else { return }
        // Every thread returned, but one gave up waiting for the others at the barrier: the
        // rounds were cut short, and the entries prove nothing.
        guard !together.isBroken else {
            Issue.record("A thread waited \(Int(patience)) s at the barrier between two rounds for the other threads, and the check stopped there, judging nothing: the work between two rounds took longer than that.")
            return
        }

        #expect(
            changedInsideMutate.current == 0,
            "\(changedInsideMutate.current) times the entries changed while a writer was inside mutate: other writes ran at the same time as mutate's body. Writes must be exclusive: every write (subscript set, removeValue, mutate, ...) goes through the same protection, with a barrier on your private concurrent queue or a write lock.")
        var missing: [Int] = []
        for thread in 0..<threads {
            for slot in 0..<keysPerThread where dictionary[key(thread, slot)] != value(writeRounds, slot) {
                missing.append(key(thread, slot))
            }
        }
        #expect(
            missing.isEmpty,
            "After the threads finished, \(missing.count) of \(threads * keysPerThread) keys did not hold the last value their thread wrote (first: \(missing.first.map(String.init) ?? "-")). Writes must be kept, and no write may undo another.")
        #expect(
            lostWrites.current == 0 || missing.count == threads * keysPerThread,
            "\(lostWrites.current) writes were lost: threads wrote their own keys at the same time, and afterwards a key did not hold what its thread had written. Two unprotected writes to one Dictionary undo each other (or corrupt it): writes must be exclusive.")
        #expect(dictionary.count == threads * keysPerThread, "count should be \(threads * keysPerThread) at the end, got \(dictionary.count).")
    }
}
