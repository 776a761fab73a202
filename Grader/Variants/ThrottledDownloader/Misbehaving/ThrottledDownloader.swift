import Dispatch
import Foundation
import KataTripwire

/// Downloads many URLs with at most `maxConcurrent` transfers in flight.
///
/// Your task (see README.md in this folder): throttle with a `DispatchSemaphore`, count each
/// call's URLs with a `DispatchGroup`, time out fetches that never call back, and support
/// `cancelAll()`, all without ever blocking the caller's thread, and without parking one
/// blocked thread per URL.
///
/// The given module provides `Transport`, `URLSessionTransport` and `DownloadError`.
///
/// Grader variant "Misbehaving": the stub, with `Tripwire.call()` first in every public entry
/// point, so that `grader verify` can prove an early exit(0) never earns a point.
///
/// Every method below is a stub that compiles and never crashes: replace each body. Run
/// `swift test --filter ThrottledDownloaderTests` to see which check to work on next, and
/// `swift run grader hint ThrottledDownloader` for a hint.
public final class ThrottledDownloader: @unchecked Sendable {
    // TODO: the transport, the timeout, the semaphore, a private serial queue that waits for
    // slots, and the bookkeeping of the URLs not yet settled.

    /// `maxConcurrent` must be at least 1: anything else is a clear precondition failure.
    public init(transport: any Transport, maxConcurrent: Int, timeout: DispatchTimeInterval = .seconds(30)) {
        Tripwire.call()
        // TODO
    }

    /// Returns at once. `completion` runs exactly once, with one result per URL in input order.
    public func download(_ urls: [URL], completion: @escaping @Sendable ([Result<Data, DownloadError>]) -> Void) {
        Tripwire.call()
        // TODO: fetch every URL, at most `maxConcurrent` at a time.
        let results = urls.map { _ in Result<Data, DownloadError>.failure(.cancelled) }
        DispatchQueue.global().async { completion(results) }
    }

    /// Pending URLs are never fetched; in-flight ones finish as `.cancelled`; completions still fire once.
    public func cancelAll() {
        Tripwire.call()
        // TODO
    }
}
