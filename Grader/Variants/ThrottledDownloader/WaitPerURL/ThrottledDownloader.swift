import Dispatch
import Foundation

/// Downloads many URLs with at most `maxConcurrent` transfers in flight.
///
/// Wrong on purpose: each URL gets a block of its own on a global queue, which waits there for a
/// slot (the "semaphore limits concurrency" pattern with the wait inside the block). The limit
/// holds, but every waiting URL parks a thread in `wait()`: libdispatch answers blocked workers
/// with more threads, up to its pool's limit. Everything else is the reference.
public final class ThrottledDownloader: @unchecked Sendable {
    private final class Request: @unchecked Sendable {
        let group = DispatchGroup()
        var results: [Result<Data, DownloadError>?]
        init(count: Int) { results = Array(repeating: nil, count: count) }
    }

    private enum Stage { case pending, inFlight, settled }

    private final class Item: @unchecked Sendable {
        let url: URL
        let index: Int
        let request: Request
        var stage = Stage.pending
        init(url: URL, index: Int, request: Request) {
            self.url = url
            self.index = index
            self.request = request
        }
    }

    private let transport: any Transport
    private let timeout: DispatchTimeInterval
    private let slots: DispatchSemaphore
    private let feeder = DispatchQueue(label: "ThrottledDownloader.feeder")
    private let timers = DispatchQueue(label: "ThrottledDownloader.timers")
    private let callbacks = DispatchQueue(label: "ThrottledDownloader.callbacks")
    private let lock = NSLock()
    private var unsettled: [ObjectIdentifier: Item] = [:]

    /// `maxConcurrent` must be at least 1: anything else is a clear precondition failure.
    public init(transport: any Transport, maxConcurrent: Int, timeout: DispatchTimeInterval = .seconds(30)) {
        precondition(maxConcurrent >= 1, "ThrottledDownloader needs maxConcurrent of at least 1, got \(maxConcurrent).")
        self.transport = transport
        self.timeout = timeout
        self.slots = DispatchSemaphore(value: maxConcurrent)
    }

    /// Returns at once. `completion` runs exactly once, on an internal queue, with one result
    /// per URL in input order.
    public func download(_ urls: [URL], completion: @escaping @Sendable ([Result<Data, DownloadError>]) -> Void) {
        let request = Request(count: urls.count)
        let items = urls.enumerated().map { Item(url: $1, index: $0, request: request) }
        lock.lock()
        for item in items {
            request.group.enter()
            unsettled[ObjectIdentifier(item)] = item
        }
        lock.unlock()
        request.group.notify(queue: callbacks) { [lock] in
            lock.lock()
            let results = request.results.map { $0 ?? .failure(.cancelled) }
            lock.unlock()
            completion(results)
        }
        for item in items {
            DispatchQueue.global().async { [self] in feed(item) }
        }
    }

    /// Pending URLs are never fetched; in-flight ones finish as `.cancelled`; completions still fire once.
    public func cancelAll() {
        // Settle every item in one locked step, before any slot is given back: otherwise the
        // feeder could wake on a freed slot and start a pending URL that is about to be cancelled.
        lock.lock()
        let items = Array(unsettled.values)
        let freedSlots = items.filter { markSettled($0, with: .failure(.cancelled)) }.count
        lock.unlock()
        for _ in 0..<freedSlots { slots.signal() }
        for item in items { item.request.group.leave() }
    }

    /// Runs on the feeder: waits for a slot, then starts the fetch and its timeout.
    private func feed(_ item: Item) {
        if isSettled(item) { return }  // cancelled while pending: needs no slot
        slots.wait()
        lock.lock()
        guard item.stage == .pending else {
            lock.unlock()
            slots.signal()  // cancelled while waiting for the slot
            return
        }
        item.stage = .inFlight
        lock.unlock()
        timers.asyncAfter(deadline: .now() + timeout) { [self] in settle(item, with: .failure(.timedOut)) }
        transport.fetch(item.url) { [self] result in
            settle(item, with: result.mapError { .failed(String(describing: $0)) })
        }
    }

    private func isSettled(_ item: Item) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return item.stage == .settled
    }

    /// The first result for an item wins; it frees the item's slot if it held one, and leaves
    /// the request's group. Later results (a late or duplicate callback) change nothing.
    private func settle(_ item: Item, with result: Result<Data, DownloadError>) {
        lock.lock()
        guard item.stage != .settled else {
            lock.unlock()
            return
        }
        let heldSlot = markSettled(item, with: result)
        lock.unlock()
        if heldSlot { slots.signal() }
        item.request.group.leave()
    }

    /// Records the result of an unsettled item; the caller holds the lock. Returns whether the
    /// item held a slot.
    private func markSettled(_ item: Item, with result: Result<Data, DownloadError>) -> Bool {
        let heldSlot = item.stage == .inFlight
        item.stage = .settled
        item.request.results[item.index] = result
        unsettled[ObjectIdentifier(item)] = nil
        return heldSlot
    }
}
