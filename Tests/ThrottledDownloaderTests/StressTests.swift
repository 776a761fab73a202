import Dispatch
import Foundation
import KataTestSupport
import Testing
import ThrottledDownloader

/// Four calls at the same moment, then many calls with random latencies, failures, timeouts and
/// cancels. Isolated so that a crash is a failed check.
@Suite("Downloader under stress", .exitIsAFailure)
struct DownloaderStressTests {
    /// Rounds of four calls at the same moment.
    static let burstRounds = 2
    @Test("2 rounds of 4 calls at the same moment, then 30 calls with random latencies, failures, timeouts and cancels: each completes once, with one true result per URL")
    func randomWorkloads() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: 12, in: "30 download calls at random")
            DownloaderStressTests.run()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "30 download calls at random",
            crashHint: "A trap here usually means a DispatchGroup was left more often than entered (a URL settled twice), or shared bookkeeping was changed by two threads at once.")
    }

    static func run() {
        let transport = FakeTransport { url in
            switch url.lastPathComponent.hash & 15 {
            case 0: .fail(after: Double.random(in: 0...0.003))
            case 1: .lateTwice(after: 2.0)  // long after the 500 ms timeout, even on a loaded machine
            default: .succeed(after: Double.random(in: 0...0.003))
            }
        }
        // Timed-out and cancelled fetches give their slot back while the transport may still be
        // busy with them, so the transport's own count is no measure of the limit here.
        let downloader = ThrottledDownloader(transport: transport, maxConcurrent: 3, timeout: .milliseconds(500))
        // Four threads call download at the same moment with 300 URLs each, while the answers of
        // the first fetches already come back: the downloader's bookkeeping is changed by several
        // threads at once, and without a lock it loses URLs or crashes.
        for round in 0..<burstRounds {
            let burstTransport = FakeTransport { _ in .succeed(after: 0) }
            let burstDownloader = ThrottledDownloader(transport: burstTransport, maxConcurrent: 8)
            let burstCalls = (0..<4).map { urls(300, "burst\(round)-\($0)") }
            let burstProbes = burstCalls.map { _ in CompletionProbe() }
            guard ThreadGang.run(4, seconds: Deadline.promptSeconds, in: "4 download calls at the same moment", { thread in
                burstDownloader.download(burstCalls[thread], completion: burstProbes[thread].completion)
            }) else { return }
            for (call, probe) in burstProbes.enumerated() {
                guard probe.waitForCall(seconds: Deadline.promptSeconds, in: "call \(call) of 4 made at the same moment") else { return }
            }
            for (call, probe) in burstProbes.enumerated() {
                let intact = zip(burstCalls[call], probe.results).filter { url, result in
                    if case .success(let data) = result { return data == FakeTransport.body(for: url) }
                    return false
                }.count
                #expect(intact == 300 && probe.calls.count == 1,
                        "In round \(round + 1), of 4 calls made at the same moment, call \(call) completed \(probe.calls.count) times with \(intact) of 300 bodies intact: what several callers share (the URLs not yet settled, the results) must be changed under a lock.")
            }
        }

        let calls = (0..<30).map { call in urls(Int.random(in: 0...25), "c\(call)") }
        let probes = calls.map { _ in CompletionProbe() }
        let cancels = Locked(0)
        // One deadline for everything: a correct downloader answers all 33 calls in a second or two.
        let end = DispatchTime.now() + 8
        func secondsLeft() -> Double { max(0.01, Double(Int64(end.uptimeNanoseconds) - Int64(DispatchTime.now().uptimeNanoseconds)) / 1e9) }
        guard ThreadGang.run(4, seconds: Deadline.defaultSeconds, in: "30 download calls at random", { thread in
            for call in stride(from: thread, to: calls.count, by: 4) {
                downloader.download(calls[call], completion: probes[call].completion)
                if Int.random(in: 0..<8) == 0 {
                    usleep(UInt32.random(in: 0...2_000))
                    downloader.cancelAll()
                    cancels.withLock { $0 += 1 }
                }
                usleep(UInt32.random(in: 0...1_000))
            }
        }) else { return }
        // Three more calls after the last cancelAll(): nothing may cancel them.
        let finalCalls = (0..<3).map { urls(12, "final\($0)") }
        let finalProbes = finalCalls.map { _ in CompletionProbe() }
        guard Await.blockingCall("3 download(_:completion:) calls", seconds: secondsLeft(), in: "download calls after the last cancelAll()", {
            for (list, probe) in zip(finalCalls, finalProbes) { downloader.download(list, completion: probe.completion) }
        }) else { return }
        for (call, probe) in (probes + finalProbes).enumerated() {
            guard probe.waitForCall(seconds: secondsLeft(), in: "download call \(call) of 33") else { return }
        }
        Thread.sleep(forTimeInterval: 0.3)  // duplicate completions would arrive by now
        var problems: [String] = []
        for (call, probe) in probes.enumerated() {
            if probe.calls.count != 1 { problems.append("call \(call): completion ran \(probe.calls.count) times") }
            let results = probe.results
            if results.count != calls[call].count { problems.append("call \(call): \(results.count) results for \(calls[call].count) URLs"); continue }
            for (url, result) in zip(calls[call], results) {
                switch result {
                case .success(let data) where data != FakeTransport.body(for: url):
                    problems.append("\(url.lastPathComponent): wrong data")
                case .failure(.failed) where url.lastPathComponent.hash & 15 != 0:
                    problems.append("\(url.lastPathComponent): .failed but the transport did not fail it")
                case .failure(.timedOut) where url.lastPathComponent.hash & 15 != 1:
                    problems.append("\(url.lastPathComponent): .timedOut but the transport answered in time")
                default: break
                }
            }
        }
        for (list, probe) in zip(finalCalls, finalProbes) {
            for (url, result) in zip(list, probe.results) {
                let expected: String = switch url.lastPathComponent.hash & 15 {
                case 0: describe(.failure(.failed(String(describing: FakeTransport.FakeError(url: url)))))
                case 1: describe(.failure(.timedOut))
                default: describe(.success(FakeTransport.body(for: url)))
                }
                if describe(result) != expected { problems.append("\(url.lastPathComponent) (after the last cancelAll): \(describe(result)), expected \(expected)") }
            }
            if probe.results.count != list.count { problems.append("a call after the last cancelAll: \(probe.results.count) results for \(list.count) URLs") }
        }
        #expect(problems.isEmpty, "\(problems.count) problems in 33 random calls (\(cancels.current) cancelAll); first: \(problems.first ?? "").")
    }
}
