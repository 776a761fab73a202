import Dispatch
import Foundation
import KataTestSupport
import Testing
import ThrottledDownloader

/// One result per URL, in input order, exactly once; timeouts that free a slot exactly once;
/// cancellation that keeps pending URLs away from the network.
@Suite("Results, timeouts and cancellation", .exitIsAFailure)
struct ResultTests {
    @Test("Results come in input order, one per URL; a failing URL does not affect the others; completion runs once, also for an empty list")
    func resultsInInputOrder() async {
        // Isolated: a downloader that blocks one thread per URL starves the shared queues, and
        // would stall every check in this process; in its own process it fails only this one.
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: 8, in: "20 downloads in input order")
            await ResultTests.resultsInInputOrderBody()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "20 downloads in input order", crashHint: "A crash here usually means a DispatchGroup was left more often than entered (a URL settled twice), or the process ran out of threads (one blocked wait() per URL on a global queue). A watchdog ending means the check stalled: threads blocked in wait() can starve the queues everything else needs.")
    }

    static func resultsInInputOrderBody() async {
        // Later URLs answer first, and every fifth one fails.
        let transport = FakeTransport { url in
            let index = Int(url.lastPathComponent.split(separator: "-").last ?? "") ?? 0
            return index % 5 == 3 ? .fail(after: 0.001) : .succeed(after: Double(20 - index) * 0.001)
        }
        let downloader = ThrottledDownloader(transport: transport, maxConcurrent: 20)
        let probe = CompletionProbe()
        let list = urls(20)
        guard await Await.returns("download(_:completion:)", in: "20 downloads", { downloader.download(list, completion: probe.completion) }),
              await probe.call(in: "20 downloads") else { return }
        let expected = list.enumerated().map { index, url -> String in
            index % 5 == 3 ? describe(.failure(.failed("fake failure for \(url.lastPathComponent)"))) : describe(.success(FakeTransport.body(for: url)))
        }
        let got = probe.results.map(describe)
        #expect(got == expected, "Results were \(got.prefix(5))…; expected one per URL in input order, failures as .failed(\"<the error>\"): store each result at its URL's index, not in the order fetches finish.")
        let bodiesMatch = zip(list, probe.results).allSatisfy { url, result in
            if case .success(let data) = result { return data == FakeTransport.body(for: url) }
            return true
        }
        #expect(bodiesMatch, "A URL got another URL's data.")

        let empty = CompletionProbe()
        guard await Await.returns("download(_:completion:) of no URLs", in: "a download of no URLs", { downloader.download([], completion: empty.completion) }) else { return }
        await empty.call(in: "a download of no URLs")
        await Await.pause(0.1)  // a second completion would come by now
        #expect(probe.calls.count == 1 && empty.calls.count == 1 && empty.results.isEmpty,
                "completion must run exactly once per download call (20 URLs: \(probe.calls.count) times; no URLs: \(empty.calls.count) times).")
    }

    @Test("A fetch that never calls back times out as .timedOut and frees its slot exactly once, whatever comes late")
    func timeoutFreesSlotOnce() async {
        // Isolated: a downloader that blocks one thread per URL starves the shared queues, and
        // would stall every check in this process; in its own process it fails only this one.
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: 8, in: "downloads with two fetches that never answer")
            await ResultTests.timeoutFreesSlotOnceBody()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "downloads with two fetches that never answer", crashHint: "A crash here usually means a DispatchGroup was left more often than entered (a URL settled twice), or the process ran out of threads (one blocked wait() per URL on a global queue). A watchdog ending means the check stalled: threads blocked in wait() can starve the queues everything else needs.")
    }

    static func timeoutFreesSlotOnceBody() async {
        // Two fetches answer only after they timed out (1 s, far above the 40 ms of the others
        // even on a loaded machine), twice, while thirty 40 ms fetches
        // still wait behind them: a slot given back twice lets more than 2 of those run at once.
        let transport = FakeTransport { url in
            url.lastPathComponent.hasPrefix("hang") ? .holdThenAnswerTwice : .succeed(after: 0.04)
        }
        let downloader = ThrottledDownloader(transport: transport, maxConcurrent: 2, timeout: .seconds(1))
        let probe = CompletionProbe()
        let list = urls(2, "hang") + urls(30, "slow")
        let place = "downloads with two fetches that never answer"
        guard await Await.returns("download(_:completion:)", in: place, { downloader.download(list, completion: probe.completion) }) else { return }
        // Two slow fetches started: both hanging fetches have timed out and given their slots back.
        // (A correct downloader gets there about 1 s after the call: the timeout.)
        guard await Await.until(seconds: Deadline.defaultSeconds, in: place, waitingFor: "the timeouts freeing both slots",
                                hint: "Start a timer for each fetch (asyncAfter); when it fires first, settle the URL as .timedOut and free its slot.",
                                unless: { probe.calledBeforeFetches(transport) ?? probe.cannotBeCalled },
                                { transport.fetched.current.filter { $0.lastPathComponent.hasPrefix("slow") }.count >= 2 }) else { return }
        transport.answerLateTwice()
        guard await probe.call(in: "downloads with two fetches that never answer in time") else { return }
        await Await.pause(0.3)  // let the late answers arrive
        let got = probe.results.map(describe)
        #expect(Array(got.prefix(2)) == [describe(.failure(.timedOut)), describe(.failure(.timedOut))],
                "The two fetches that did not answer within the timeout should be .timedOut; got \(got.prefix(2)). Start a timer for each fetch (asyncAfter) and settle the URL when it fires.")
        #expect(got.dropFirst(2).allSatisfy { $0.hasPrefix(".success") }, "The other 30 URLs should succeed: a timed-out fetch must give its slot back.")
        #expect(transport.meter.peak <= 2,
                "\(transport.meter.peak) slow fetches were in flight at once with maxConcurrent 2: a late or duplicate callback gave back a slot that the timeout had already given back. Settle each fetch once (timeout or callback, whichever is first) and free its slot only then.")
        #expect(probe.calls.count == 1, "completion ran \(probe.calls.count) times; late callbacks must not change anything.")
    }

    @Test("cancelAll() while work is pending and in flight: pending URLs never reach the transport, completion fires once with .cancelled")
    func cancelAllStopsPendingAndInFlight() async {
        // Isolated: a downloader that blocks one thread per URL starves the shared queues, and
        // would stall every check in this process; in its own process it fails only this one.
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: 8, in: "cancelAll() with 2 fetches in flight and 8 pending")
            await ResultTests.cancelAllStopsPendingAndInFlightBody()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "cancelAll() with 2 fetches in flight and 8 pending", crashHint: "A crash here usually means a DispatchGroup was left more often than entered (a URL settled twice), or the process ran out of threads (one blocked wait() per URL on a global queue). A watchdog ending means the check stalled: threads blocked in wait() can starve the queues everything else needs.")
    }

    static func cancelAllStopsPendingAndInFlightBody() async {
        let transport = FakeTransport { _ in .hold }
        let downloader = ThrottledDownloader(transport: transport, maxConcurrent: 2)
        let probe = CompletionProbe()
        let place = "10 downloads limited to 2"
        defer { transport.releaseHeld() }
        guard await Await.returns("download(_:completion:)", in: place, { downloader.download(urls(10), completion: probe.completion) }),
              await Await.until(in: place, waitingFor: "the first 2 fetches starting",
                                hint: "download should start fetching right away, up to maxConcurrent at a time.",
                                unless: { probe.calledBeforeFetches(transport) ?? probe.cannotBeCalled }, { transport.fetchCount >= 2 }),
              await Await.returns("cancelAll()", in: "cancelAll() with 2 fetches in flight and 8 pending", { downloader.cancelAll() }),
              await probe.call(in: "cancelAll() with 2 fetches in flight and 8 pending") else { return }
        await Await.pause(0.2)  // time for a pending URL to slip through to the transport
        transport.releaseHeld()  // the in-flight fetches answer after all, too late
        await Await.pause(0.1)
        #expect(transport.fetchCount == 2, "\(transport.fetchCount) URLs reached the transport; after cancelAll() the 8 pending ones must never be fetched.")
        #expect(probe.results.map(describe) == Array(repeating: describe(.failure(.cancelled)), count: 10),
                "After cancelAll() every URL should be .cancelled, the two in flight included; got \(probe.results.map(describe).prefix(3))….")
        #expect(probe.calls.count == 1, "completion ran \(probe.calls.count) times; it must run exactly once, however late the cancelled fetches answer.")
    }

    @Test("maxConcurrent below 1 is a precondition failure")
    func rejectsLimitBelowOne() async {
        await #expect(processExitsWith: .failure,
                      "ThrottledDownloader(maxConcurrent: 0) should stop with a precondition failure: a limit of 0 would never fetch anything. Use precondition(maxConcurrent >= 1, \"…\").") {
            _ = ThrottledDownloader(transport: FakeTransport { _ in .hold }, maxConcurrent: 0)
        }
    }
}
