import Dispatch
import Foundation
import KataTestSupport
import Testing
import ThrottledDownloader

/// The throttle: never more than `maxConcurrent` fetches in flight, exactly that many when there
/// is enough work, one shared limit for every call, and a caller that is never blocked.
@Suite("Throttling", .exitIsAFailure)
struct ThrottleTests {
    static let startHint = "download should start fetching right away, up to maxConcurrent at a time."

    @Test("Never more than maxConcurrent fetches in flight, and exactly maxConcurrent when there is enough work")
    func limitIsReachedNeverExceeded() async {
        // Isolated: a downloader that blocks one thread per URL starves the shared queues, and
        // would stall every check in this process; in its own process it fails only this one.
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: 8, in: "30 downloads limited to 3")
            await ThrottleTests.limitIsReachedNeverExceededBody()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "30 downloads limited to 3", crashHint: "A crash here usually means a DispatchGroup was left more often than entered (a URL settled twice), or the process ran out of threads (one blocked wait() per URL on a global queue). A watchdog ending means the check stalled: threads blocked in wait() can starve the queues everything else needs.")
    }

    static func limitIsReachedNeverExceededBody() async {
        let place = "30 downloads limited to 3"
        let transport = FakeTransport { _ in .succeed(after: Double.random(in: 0.002...0.006)) }
        let downloader = ThrottledDownloader(transport: transport, maxConcurrent: 3)
        let probe = CompletionProbe()
        guard await Await.returns("download(_:completion:)", in: place, { downloader.download(urls(30), completion: probe.completion) }),
              await probe.call(in: place) else { return }
        #expect(transport.fetchCount == 30, "\(transport.fetchCount) of 30 URLs reached the transport.")
        #expect(transport.meter.peak <= 3, "\(transport.meter.peak) fetches were in flight at once with maxConcurrent 3: take a slot from the semaphore before each fetch, and give it back when the fetch is over.")
        #expect(transport.meter.peak == 3 || transport.fetchCount < 30, "At most \(transport.meter.peak) fetches were in flight at once; with 30 URLs and maxConcurrent 3 the downloader should keep 3 going. A throttle that waits for each fetch before starting the next serialises everything.")
    }

    @Test("download returns at once for 1,000 URLs while every fetch is still pending")
    func downloadReturnsAtOnce() async {
        // Isolated: a downloader that parks one blocked thread per URL exhausts the process's
        // threads here, and the checks sharing its process would stall with it.
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: 6, in: "download(_:completion:) with 1,000 URLs")
            ThrottleTests.returnsWhileFetchesPending()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "download(_:completion:) with 1,000 URLs",
                              crashHint: "A crash here can mean the process ran out of threads: one blocked wait() per URL on a global queue.")
    }

    /// Runs in the child process of an isolated check: blocking waits are fine there, and no
    /// wait depends on a thread pool that the code under test may have exhausted.
    static func returnsWhileFetchesPending() {
        let place = "download(_:completion:) with 1,000 URLs"
        let transport = FakeTransport { _ in .hold }
        let downloader = ThrottledDownloader(transport: transport, maxConcurrent: 4)
        let probe = CompletionProbe()
        guard Await.blockingCall("download(_:completion:)", in: place,
                                 hint: "It must not wait for slots on the caller's thread (a semaphore.wait() in the caller's loop blocks it, and a caller on the main thread freezes the app).",
                                 { downloader.download(urls(1_000), completion: probe.completion) }) else { return }
        guard Deadline.waitUntil(seconds: Deadline.promptSeconds, in: "download of 1,000 URLs", waitingFor: "the first 4 fetches starting", hint: startHint,
                                 { transport.fetchCount >= 4 || probe.calledBeforeFetches(transport) != nil || probe.cannotBeCalled != nil }) else { return }
        if transport.fetchCount < 4, let reason = probe.calledBeforeFetches(transport) ?? probe.cannotBeCalled {
            Issue.record(Comment(rawValue: reason))
            return
        }
        usleep(100_000)  // time for a fetch beyond the limit to start
        #expect(transport.fetchCount == 4, "\(transport.fetchCount) fetches started while the first 4 were still pending; expected exactly 4.")
    }

    @Test("While 500 URLs wait for a slot, the process's thread count stays small")
    func threadCountStaysBounded() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: 8, in: "500 URLs waiting for 2 slots")
            ThrottleTests.countThreadsWhileWaiting()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "500 URLs waiting for 2 slots", crashHint: "A crash here can mean the process ran out of threads.")
    }

    static let extraThreadsAllowed = 24

    /// Runs in the child process of an isolated check: blocking waits are fine there.
    static func countThreadsWhileWaiting() {
        let place = "500 URLs waiting for 2 slots"
        let transport = FakeTransport { _ in .hold }
        let downloader = ThrottledDownloader(transport: transport, maxConcurrent: 2)
        let before = ThreadCount.current()
        let probe = CompletionProbe()
        guard Await.blockingCall("download(_:completion:)", in: place,
                                 hint: "download must return at once; waiting for slots belongs on a private serial queue.",
                                 { downloader.download(urls(500), completion: probe.completion) }) else { return }
        guard Deadline.waitUntil(seconds: Deadline.promptSeconds, in: place, waitingFor: "the first 2 fetches starting", hint: startHint,
                                 { transport.fetchCount >= 2 || probe.calledBeforeFetches(transport) != nil }) else { return }
        if let reason = probe.calledBeforeFetches(transport), transport.fetchCount < 2 {
            Issue.record(Comment(rawValue: reason))
            return
        }
        Thread.sleep(forTimeInterval: 0.5)  // time for a thread-per-URL design to pile up
        let during = ThreadCount.current()
        #expect(during - before <= extraThreadsAllowed,
                "The process went from \(before) to \(during) threads while 500 URLs waited for 2 slots. Waiting must not park one blocked thread per URL (a semaphore.wait() per URL on a global queue): let one private serial queue wait for slots and start the fetches.")
        transport.releaseHeld()
        Deadline.waitUntil(seconds: Deadline.defaultSeconds, in: "500 URLs through 2 slots", waitingFor: "every fetch answered") {
            transport.releaseHeld()
            return probe.calls.count == 1
        }
        let successes = probe.results.filter { if case .success = $0 { true } else { false } }.count
        #expect(successes == 500, "\(successes) of 500 downloads succeeded once the transport answered.")
    }

    @Test("Several download calls at once share the one limit")
    func callsShareTheLimit() async {
        // Isolated: a downloader that blocks one thread per URL starves the shared queues, and
        // would stall every check in this process; in its own process it fails only this one.
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: 8, in: "three download calls sharing 2 slots")
            await ThrottleTests.callsShareTheLimitBody()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "three download calls sharing 2 slots", crashHint: "A crash here usually means a DispatchGroup was left more often than entered (a URL settled twice), or the process ran out of threads (one blocked wait() per URL on a global queue). A watchdog ending means the check stalled: threads blocked in wait() can starve the queues everything else needs.")
    }

    static func callsShareTheLimitBody() async {
        let place = "three download calls at once"
        let transport = FakeTransport { _ in .succeed(after: 0.004) }
        let downloader = ThrottledDownloader(transport: transport, maxConcurrent: 2)
        let probes = (0..<3).map { _ in CompletionProbe() }
        guard await Await.gang(3, in: place, waitingFor: "3 download(_:completion:) calls returning", { index in
            downloader.download(urls(10, "call\(index)"), completion: probes[index].completion)
        }) else { return }
        var allCompleted = true
        for probe in probes where allCompleted {
            allCompleted = await probe.call(in: "three download calls sharing 2 slots")
        }
        #expect(transport.meter.peak <= 2, "\(transport.meter.peak) fetches were in flight at once across three calls with maxConcurrent 2: every call must share one semaphore, not make its own.")
        #expect(probes.map { $0.calls.count } == [1, 1, 1] && transport.fetchCount == 30,
                "Each of the three calls should complete once after its 10 fetches; completions \(probes.map { $0.calls.count }), fetches \(transport.fetchCount).")
    }
}

/// The number of threads in this process.
enum ThreadCount {
    static func current() -> Int {
        #if os(Linux)
        return (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
        #elseif canImport(Darwin)
        var threads: thread_act_array_t?
        var count: mach_msg_type_number_t = 0
        guard task_threads(mach_task_self_, &threads, &count) == KERN_SUCCESS else { return 0 }
        if let threads {
            vm_deallocate(mach_task_self_, vm_address_t(UInt(bitPattern: threads)), vm_size_t(Int(count) * MemoryLayout<thread_t>.stride))
        }
        return Int(count)
        #else
        return 0
        #endif
    }
}
