import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import KataTestSupport
import Testing
import ThrottledDownloader

/// The real thing: URLSessionTransport against an HTTP server on 127.0.0.1 that the check
/// starts. The server counts the requests it serves at once, so the limit is measured where it
/// matters: on the other end of the connection.
@Suite("End to end over HTTP", .exitIsAFailure)
struct EndToEndTests {
    @Test("Against a loopback HTTP server, at most maxConcurrent requests arrive at once, exactly that many at the peak, and every body arrives intact")
    func loopbackServerSeesTheLimit() async {
        // Isolated: a downloader that blocks one thread per URL starves the shared queues, and
        // would stall every check in this process; in its own process it fails only this one.
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: 8, in: "12 HTTP downloads limited to 3")
            await EndToEndTests.loopbackServerSeesTheLimitBody()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "12 HTTP downloads limited to 3", crashHint: "A crash here usually means a DispatchGroup was left more often than entered (a URL settled twice), or the process ran out of threads (one blocked wait() per URL on a global queue). A watchdog ending means the check stalled: threads blocked in wait() can starve the queues everything else needs.")
    }

    static func loopbackServerSeesTheLimitBody() async {
        guard let server = LoopbackHTTPServer(latency: 0.08, maxRequests: 40) else {
            Issue.record("Could not start the test's HTTP server on 127.0.0.1.")
            return
        }
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 16  // above the downloader's limit, so the downloader's limit is the one that counts
        configuration.timeoutIntervalForRequest = 10
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let downloader = ThrottledDownloader(transport: URLSessionTransport(session: session), maxConcurrent: 3)
        let paths = (0..<12).map { "image-\($0).bin" }
        let probe = CompletionProbe()
        let place = "12 HTTP downloads limited to 3"
        let list = paths.map(server.url)
        // A correct downloader needs about 0.4 s here (12 requests of 80 ms, 3 at a time).
        guard await Await.returns("download(_:completion:)", in: place, { downloader.download(list, completion: probe.completion) }),
              await probe.call(seconds: Deadline.defaultSeconds, in: place) else { return }
        let intact = zip(paths, probe.results).filter { path, result in
            if case .success(let data) = result { return data == LoopbackHTTPServer.body(for: path) }
            return false
        }.count
        #expect(intact == 12, "\(intact) of 12 bodies arrived intact; results: \(probe.results.map(describe).prefix(4))….")
        #expect(server.meter.peak <= 3, "The server was serving \(server.meter.peak) requests at once; the downloader's limit is 3.")
        #expect(server.meter.peak == 3 || intact < 12, "The server never saw more than \(server.meter.peak) requests at once: with 12 URLs and maxConcurrent 3 it should see 3.")
    }
}
