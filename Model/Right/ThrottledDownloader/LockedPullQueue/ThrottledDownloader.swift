import Dispatch
import Foundation

/// Downloads many URLs with at most `maxConcurrent` transfers in flight.
///
/// A right implementation in another style than the reference (for the model and as a grading
/// fixture): no thread ever waits. One `NSLock` guards a state enum per URL, a FIFO of the URLs
/// waiting for a slot and the count of fetches running; whoever frees a slot (an answer, a
/// timeout, `cancelAll()`) takes the next waiting URLs under the same lock and starts them after
/// unlocking. The throttle is that count, not a semaphore.
public final class ThrottledDownloader: @unchecked Sendable {
    private final class Call: @unchecked Sendable {
        let completion: @Sendable ([Result<Data, DownloadError>]) -> Void
        var results: [Result<Data, DownloadError>?]
        var open: Int
        init(count: Int, completion: @escaping @Sendable ([Result<Data, DownloadError>]) -> Void) {
            results = Array(repeating: nil, count: count)
            open = count
            self.completion = completion
        }
    }

    private enum State { case waiting, running, done }

    private final class Item: @unchecked Sendable {
        let url: URL
        let index: Int
        let call: Call
        var state = State.waiting
        init(url: URL, index: Int, call: Call) {
            self.url = url
            self.index = index
            self.call = call
        }
    }

    private let transport: any Transport
    private let timeout: DispatchTimeInterval
    private let limit: Int
    private let timers = DispatchQueue(label: "ThrottledDownloader.timers")
    private let delivery = DispatchQueue(label: "ThrottledDownloader.delivery")
    private let lock = NSLock()
    /// Under `lock`: the URLs waiting for a slot, oldest first (from `head` on), and those running.
    private var waiting: [Item] = []
    private var head = 0
    private var running: [ObjectIdentifier: Item] = [:]

    /// `maxConcurrent` must be at least 1: anything else is a clear precondition failure.
    public init(transport: any Transport, maxConcurrent: Int, timeout: DispatchTimeInterval = .seconds(30)) {
        precondition(maxConcurrent >= 1, "ThrottledDownloader needs maxConcurrent of at least 1, got \(maxConcurrent).")
        self.transport = transport
        self.timeout = timeout
        self.limit = maxConcurrent
    }

    /// Returns at once. `completion` runs exactly once, on an internal queue, with one result
    /// per URL in input order.
    public func download(_ urls: [URL], completion: @escaping @Sendable ([Result<Data, DownloadError>]) -> Void) {
        guard !urls.isEmpty else {
            delivery.async { completion([]) }
            return
        }
        let call = Call(count: urls.count, completion: completion)
        lock.lock()
        waiting += urls.enumerated().map { Item(url: $1, index: $0, call: call) }
        let started = takeStartable()
        lock.unlock()
        start(started)
    }

    /// Pending URLs are never fetched; in-flight ones finish as `.cancelled`; completions still fire once.
    public func cancelAll() {
        lock.lock()
        let items = Array(running.values) + waiting[head...]
        running.removeAll()
        waiting.removeAll()
        head = 0
        let finished = items.compactMap { record($0, .failure(.cancelled)) }
        lock.unlock()
        deliver(finished)
    }

    /// Under the lock: moves waiting URLs to running while there is a free slot.
    private func takeStartable() -> [Item] {
        var started: [Item] = []
        while running.count < limit, head < waiting.count {
            let item = waiting[head]
            head += 1
            item.state = .running
            running[ObjectIdentifier(item)] = item
            started.append(item)
        }
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            head = 0
        }
        return started
    }

    /// Outside the lock: starts each fetch and its timeout.
    private func start(_ items: [Item]) {
        for item in items {
            timers.asyncAfter(deadline: .now() + timeout) { [self] in finish(item, with: .failure(.timedOut)) }
            transport.fetch(item.url) { [self] result in
                finish(item, with: result.mapError { .failed(String(describing: $0)) })
            }
        }
    }

    /// The first result for a running item wins: it frees the slot, which the next waiting URL
    /// takes. Later results (a late or duplicate callback) change nothing.
    private func finish(_ item: Item, with result: Result<Data, DownloadError>) {
        lock.lock()
        guard item.state == .running else {
            lock.unlock()
            return
        }
        running[ObjectIdentifier(item)] = nil
        let finished = record(item, result)
        let started = takeStartable()
        lock.unlock()
        start(started)
        deliver(finished.map { [$0] } ?? [])
    }

    /// Under the lock: settles the item; returns its call when that was its last open URL.
    private func record(_ item: Item, _ result: Result<Data, DownloadError>) -> Call? {
        item.state = .done
        item.call.results[item.index] = result
        item.call.open -= 1
        return item.call.open == 0 ? item.call : nil
    }

    private func deliver(_ calls: [Call]) {
        for call in calls {
            let results = call.results.map { $0 ?? .failure(.cancelled) }
            delivery.async { call.completion(results) }
        }
    }
}
