import Dispatch
import Foundation
import KataTestSupport
import Testing
import ThrottledDownloader

/// The end of a downloader's life: its owner lets it go right after asking for downloads (a view
/// controller that starts a prefetch and is dismissed). The work already asked for still finishes,
/// and the completion still runs once. Isolated: a downloader freed with a slot taken can trap
/// (a `DispatchSemaphore` released below the value it was created with).
@Suite("A downloader let go", .exitIsAFailure)
struct ReleaseTests {
    static let place = "a downloader let go right after download(_:completion:)"

    @Test("A downloader let go right after download(_:completion:), with URLs in flight and waiting, still delivers every result, once")
    func releasedDownloaderFinishesItsWork() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: 8, in: ReleaseTests.place)
            await ReleaseTests.releasedBody()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: ReleaseTests.place,
            crashHint: "This check only lets the downloader go while its fetches run: a crash here usually means a DispatchSemaphore was released while a slot was still taken (libdispatch stops the process when a semaphore is released below the value it was created with), or a block used an unowned or force-unwrapped reference to the freed downloader.")
    }

    static func releasedBody() async {
        let transport = FakeTransport { _ in .succeed(after: 0.02) }
        let probe = CompletionProbe()
        let list = urls(6)
        do {
            let downloader = ThrottledDownloader(transport: transport, maxConcurrent: 2, timeout: .seconds(5))
            guard await Await.returns("download(_:completion:)", in: place, { downloader.download(list, completion: probe.completion) }) else { return }
        }  // the caller's last reference goes here: 2 URLs in flight, 4 waiting for a slot
        let letGo = "The downloader was let go right after download(_:completion:), with 2 URLs in flight and 4 waiting, and its completion can never run any more: nothing keeps the work that was asked for. Work already asked for must finish: the blocks that feed, fetch and settle the URLs keep what they need (capture self strongly there, not [weak self]), and let it go once every URL has a result."
        guard await Await.until(seconds: Deadline.promptSeconds, in: place, waitingFor: "the download's completion",
                                hint: "Work asked for before the downloader was let go must still finish, and its completion run once (a downloader that is kept does this in milliseconds): the blocks that feed, fetch and settle the URLs keep what they need (capture self strongly there, not [weak self]) until every URL has a result.",
                                unless: { probe.cannotBeCalled == nil ? nil : letGo }, { probe.wasCalled })
        else { return }
        let got = probe.results.map(describe)
        let expected = list.map { describe(.success(FakeTransport.body(for: $0))) }
        #expect(got == expected, "After the downloader was let go, the completion got \(got.prefix(3))…; expected every URL's data, in input order.")
        await Await.pause(0.1)  // a second completion would come by now
        #expect(probe.calls.count == 1, "The completion ran \(probe.calls.count) times after the downloader was let go; it runs exactly once per download call.")
    }
}
