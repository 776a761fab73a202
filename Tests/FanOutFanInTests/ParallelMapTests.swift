import Dispatch
import FanOutFanIn
import Foundation
import KataTestSupport
import Testing

/// `parallelMap` on `concurrentPerform`. Isolated: iterations that append to one array at the same
/// time can crash the process.
@Suite("parallelMap", .exitIsAFailure)
struct ParallelMapTests {
    static let crashHint = "A crash here usually means that iterations wrote to one shared array at the same time (append from several threads is a data race): give each element its own slot."

    static func value(_ element: Int) -> Int { element &* 31 &+ 7 }

    /// What a learner reads when `result` is not `input.map(value)`; nil when it is.
    static func difference(_ result: [Int], _ input: [Int], chunkSize: Int) -> String? {
        let expected = input.map(value)
        if result == expected { return nil }
        let what = "parallelMap of \(input.count) elements in chunks of \(chunkSize)"
        let tail = input.count % chunkSize
        if tail != 0, result == Array(expected.dropLast(tail)) {
            return "\(what) returned \(result.count) results: the last \(tail), a partial chunk, are missing. Run (count + chunkSize - 1) / chunkSize iterations; the last one takes the elements that are left."
        }
        let whole = input.count - tail
        if tail != 0, result.count == expected.count, result.prefix(whole) == expected.prefix(whole) {
            return "\(what) returned the right results except the last \(tail), a partial chunk, which are not the transform's: that chunk was never computed. Run (count + chunkSize - 1) / chunkSize iterations; the last one takes the elements that are left."
        }
        if result.isEmpty {
            return "\(what) returned no results, expected \(expected.count)."
        }
        if result.count < expected.count {
            return "\(what) returned \(result.count) results, expected \(expected.count): results were lost, as they are when several iterations append to one array at once (a data race). Write each result into the slot of its element."
        }
        if result.count == expected.count, result.sorted() == expected.sorted() {
            return "\(what) returned every result, but not in input order (iterations finish in any order): write each result at its element's index instead of appending."
        }
        return "\(what) returned \(result.count) results that are not the sequential map's (expected \(expected.count), the first ones \(Array(expected.prefix(4))), got \(Array(result.prefix(4))))."
    }

    @Test("parallelMap returns every result in input order, equal to the sequential map, also when iterations finish out of order")
    func parallelMapMatchesSequential() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "parallelMap")
            ParallelMapTests.matchesSequential()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "parallelMap", crashHint: Self.crashHint)
    }

    static func matchesSequential() {
        let empty = parallelMap([Int](), chunkSize: 4, value)
        #expect(empty.isEmpty, "parallelMap of no elements returned \(empty.count) results, expected none.")
        let input = Array(0..<256)
        for _ in 0..<8 {
            for chunkSize in [1, 8, 64] {
                // The first chunk waits (20 ms at most) until another chunk is done, so that on two
                // cores the chunks finish out of order.
                let othersDone = Locked(0)
                let result = parallelMap(input, chunkSize: chunkSize) { element in
                    if element == 0 {
                        let end = DispatchTime.now() + 0.02
                        while othersDone.current == 0, DispatchTime.now() < end { usleep(200) }
                    }
                    let result = value(element)
                    if element >= chunkSize { othersDone.withLock { $0 += 1 } }
                    return result
                }
                if let words = difference(result, input, chunkSize: chunkSize) {
                    Issue.record(Comment(rawValue: words))
                    return
                }
            }
        }
    }

    @Test("parallelMap keeps the last, partial chunk: element counts that are not a multiple of the chunk size, and fewer elements than one chunk")
    func parallelMapKeepsLastPartialChunk() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "parallelMap with a partial chunk")
            ParallelMapTests.keepsPartialChunk()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "parallelMap with a partial chunk", crashHint: Self.crashHint)
    }

    static func keepsPartialChunk() {
        for (count, chunkSize) in [(10, 3), (100, 7), (1_000, 64), (7, 10), (1, 4), (6, 5)] {
            let input = Array(0..<count)
            if let words = difference(parallelMap(input, chunkSize: chunkSize, value), input, chunkSize: chunkSize) {
                Issue.record(Comment(rawValue: words))
                return
            }
        }
    }

    @Test("parallelMap runs calls of transform at the same time on a machine with two or more cores (a one-core machine cannot show it: the check does not run there)",
          .enabled(if: ProcessInfo.processInfo.activeProcessorCount >= 2, "This machine has one core: it cannot show calls of transform overlapping, so this check does not run and earns nothing here."))
    func parallelMapOverlaps() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "parallelMap's overlap")
            ParallelMapTests.overlaps()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "parallelMap's overlap", crashHint: Self.crashHint)
    }

    static func overlaps() {
        // Each call waits (2 s at most, until one call has waited that long in vain) for a second
        // call to be inside transform at the same time: a rendezvous, not a stopwatch.
        let meter = ConcurrencyMeter()
        let gaveUp = Locked(false)
        let input = Array(0..<16)
        let result = parallelMap(input, chunkSize: 1) { element in
            meter.measure {
                if !gaveUp.current, !Deadline.happens(within: 2.0, { meter.peak >= 2 }) {
                    gaveUp.withLock { $0 = true }
                }
                return value(element)
            }
        }
        if let words = difference(result, input, chunkSize: 1) {
            Issue.record(Comment(rawValue: words))
            return
        }
        #expect(meter.peak >= 2, Comment(rawValue: "On this machine with \(ProcessInfo.processInfo.activeProcessorCount) cores, parallelMap of 16 elements in chunks of 1 never had two calls of transform running at once (each waited up to 2 s for another): the work ran one call at a time, as it does with a lock around the whole transform. Lock only what the iterations share, never the work itself."))
    }

    @Test("parallelMap runs no more calls of transform at once than the machine has cores, also when they block")
    func parallelMapBoundsThreads() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "parallelMap with blocking calls")
            ParallelMapTests.boundsThreads()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "parallelMap with blocking calls", crashHint: Self.crashHint)
    }

    /// How long the calls stay blocked: libdispatch on Linux adds a thread to the global pool for
    /// blocked ones once a second at most (swift-corelibs-libdispatch, src/event/workqueue.c: a
    /// timer every NSEC_PER_SEC pokes one thread into a pool with no runnable worker); measured
    /// here, the third thread came 2.0 s after the check's 64 blocked items were queued.
    static let blockedWindow = 2.6

    static func boundsThreads() {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let meter = ConcurrencyMeter()
        // Calls block in a semaphore wait, the kind of block libdispatch's pool answers with more threads.
        let gate = DispatchSemaphore(value: 0)
        let input = Array(0..<64)
        let result = Locked<[Int]?>(nil)
        let caller = Locked<Thread?>(nil)
        let callerWorks = Locked(false)
        let returned = Returned {
            caller.withLock { $0 = Thread.current }
            let values = parallelMap(input, chunkSize: 1) { element in
                if Thread.current === caller.current { callerWorks.withLock { $0 = true } }
                return meter.measure {
                    gate.wait()
                    gate.signal()
                    return value(element)
                }
            }
            result.withLock { $0 = values }
        }
        let watch = Stopwatch()
        // Ends early when the calling thread is one of `cores` workers, all blocked (as with
        // concurrentPerform, whose caller runs iterations too and whose width is the core count).
        // Other right designs wait the whole window.
        while !returned.yes, meter.peak <= cores, watch.seconds < blockedWindow {
            if callerWorks.current, meter.current == cores, watch.seconds > 0.2 { break }
            usleep(1_000)
        }
        let peak = meter.peak
        gate.signal()
        guard Deadline.waitUntil(seconds: Deadline.promptSeconds, in: "parallelMap with blocking calls", waitingFor: "parallelMap returning after its calls were let go", { returned.yes }) else { return }
        if let words = difference(result.current ?? [], input, chunkSize: 1) {
            Issue.record(Comment(rawValue: words))
            return
        }
        #expect(peak <= cores, Comment(rawValue: "While its calls of transform blocked, parallelMap had \(peak) of them running at once on a machine with \(cores) cores: it started more threads than there are cores, as one DispatchQueue.global().async per element does (libdispatch adds threads while others are blocked; thousands of elements make thousands of threads). concurrentPerform runs at most as many iterations at once as there are cores."))
    }
}
