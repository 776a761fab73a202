import Foundation
import KataBench
import ThrottledDownloader

/// A transport that answers every URL after the same latency, as a server at a fixed distance.
struct LatencyTransport: Transport {
    let latency: DispatchTimeInterval
    func fetch(_ url: URL, completion: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + latency) { completion(.success(Data())) }
    }
}

let settings = BenchSettings()
let urlCount = settings.quick ? 40 : 200
let latencyMilliseconds = 5
let limits = [1, 2, 4, 8]
let urls = (0..<urlCount).map { URL(string: "https://example.invalid/\($0)")! }

/// Seconds for your downloader to fetch every URL with at most `limit` at once.
func wallTime(limit: Int) -> Double {
    let downloader = ThrottledDownloader(transport: LatencyTransport(latency: .milliseconds(latencyMilliseconds)), maxConcurrent: limit)
    let done = DispatchSemaphore(value: 0)
    let start = DispatchTime.now().uptimeNanoseconds
    downloader.download(urls) { _ in done.signal() }
    guard done.wait(timeout: .now() + 60) == .success else { return .infinity }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

let ideal = limits.map { limit in [Double((urlCount + limit - 1) / limit) * Double(latencyMilliseconds) / 1000] }
let report = BenchReport(
    exercise: "ThrottledDownloader", unit: "seconds for all URLs", higherIsBetter: false,
    method: "\(urlCount) URLs over a transport that answers each after \(latencyMilliseconds) ms; the ideal is "
        + "ceil(\(urlCount) / limit) × \(latencyMilliseconds) ms. \(settings.warmUps) warm-up run, then the median of \(settings.runs) runs. Release build.",
    workloads: [BenchReport.Workload(
        name: "\(urlCount) URLs, \(latencyMilliseconds) ms each", description: "wall time against the limit of concurrent downloads",
        xLabel: "maxConcurrent", x: limits,
        series: [
            BenchReport.Series(implementation: "your ThrottledDownloader", isLearner: true, samples: limits.map { limit in settings.samples { wallTime(limit: limit) } }),
            BenchReport.Series(implementation: "ideal: ceil(n / limit) × latency", isBaseline: true, samples: ideal),
        ])])
try report.write()
