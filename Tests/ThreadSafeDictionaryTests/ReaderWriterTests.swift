import Foundation
import KataTestSupport
import Testing
import ThreadSafeDictionary

/// The point of a reader-writer design: readers share, writers are alone.
@Suite("Readers and writers", .exitIsAFailure)
struct ReaderWriterTests {
    static let meetingSeconds = 1.0

    @Test("Two readers can be inside read at the same time")
    func readersRunTogether() async {
        guard EntriesKept.orRecord(checking: "reading from two threads") else { return }
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "two concurrent read calls")
            ReaderWriterTests.twoReadersMeet()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "two concurrent read calls", crashHint: "read should only look at the storage, never change it.")
    }

    static func twoReadersMeet() {
        let dictionary = ThreadSafeDictionary(["answer": 42])
        let meeting = Rendezvous(parties: 2, seconds: meetingSeconds)
        let met = Locked([Bool]())
        let sawValue = Locked([Bool]())
        ThreadGang.run(2, seconds: meetingSeconds + 3, in: "two concurrent read calls") { _ in
            dictionary.read { entries in
                sawValue.withLock { $0.append(entries["answer"] == 42) }
                let together = meeting.arriveAndWait()
                met.withLock { $0.append(together) }
            }
        }
        #expect(
            met.current.count == 2 && met.current.allSatisfy { $0 },
            "Two readers never were inside read at the same time (waited \(Int(meetingSeconds)) s for them to meet). read lets only one reader in at a time: a single lock or a serial queue serializes readers. Let reads share (a concurrent queue with sync, or a reader-writer lock).")
        #expect(
            sawValue.current == [true, true],
            "read should hand its body the stored entries: a reader looked for \"answer\": 42 and did not find it.")
    }

    @Test("No reader is inside read while mutate runs, and no two writers overlap")
    func writersAreExclusive() async {
        guard EntriesKept.orRecord(checking: "read and mutate from 6 threads") else { return }
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "read and mutate from 6 threads")
            ReaderWriterTests.readersAndWritersNeverOverlap()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "read and mutate from 6 threads",
            crashHint: "A crash here usually means a writer changed the storage while a reader was reading it: writes must wait for readers and keep them out (a barrier).")
    }

    struct Occupancy {
        var readers = 0
        var writers = 0
        var readerSawWriter = 0
        var writerSawReader = 0
        var writerSawWriter = 0
        /// Calls that returned: the gang's deadline watches it, so that slow is not a deadlock.
        var returned = 0
    }

    static let readerThreads = 4
    static let writerThreads = 2
    static let iterations = 300

    static func readersAndWritersNeverOverlap() {
        let dictionary = ThreadSafeDictionary<String, Int>(["writes": 0])
        let occupancy = Locked(Occupancy())
        ThreadGang.run(readerThreads + writerThreads, in: "read and mutate from 6 threads", progress: { occupancy.current.returned }) { index in
            let isWriter = index < writerThreads
            for _ in 0..<iterations {
                if isWriter {
                    dictionary.mutate { entries in
                        occupancy.withLock {
                            if $0.readers > 0 { $0.writerSawReader += 1 }
                            if $0.writers > 0 { $0.writerSawWriter += 1 }
                            $0.writers += 1
                        }
                        entries["writes", default: 0] += 1
                        usleep(50)  // widens the window in which an intruder would be seen
                        occupancy.withLock { $0.writers -= 1 }
                    }
                } else {
                    dictionary.read { _ in
                        occupancy.withLock {
                            if $0.writers > 0 { $0.readerSawWriter += 1 }
                            $0.readers += 1
                        }
                        usleep(50)
                        occupancy.withLock { $0.readers -= 1 }
                    }
                }
                occupancy.withLock { $0.returned += 1 }
            }
        }
        let seen = occupancy.current
        let overlaps = seen.readerSawWriter + seen.writerSawReader
        #expect(
            seen.writerSawWriter == 0,
            "Two writers were inside mutate at once (\(seen.writerSawWriter) times): mutate must keep every other writer out while its body runs: sync(flags: .barrier) on your private concurrent queue (a plain sync lets writers run together; a barrier on a global queue is ignored), or a write lock.")
        #expect(
            overlaps == 0 || seen.writerSawWriter > 0,
            "A reader was inside read's body while mutate ran (\(seen.readerSawWriter) times a reader found a writer inside, \(seen.writerSawReader) times a writer found a reader inside), though writers kept each other out: read must keep writers out while its body runs. Call the body inside the protected region (queue.sync { try body(storage) }, or under the read lock), not on a copy after leaving it; and mutate must wait for the readers inside.")
        let writes = dictionary["writes"] ?? 0
        #expect(
            writes == writerThreads * iterations,
            "mutate should change the stored entries: after \(writerThreads * iterations) increments inside mutate, \"writes\" holds \(writes).")
    }
}
