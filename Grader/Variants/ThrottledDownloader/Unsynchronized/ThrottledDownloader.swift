import Dispatch
import Foundation

/// Downloads many URLs with at most `maxConcurrent` transfers in flight.
///
/// Grader variant "Unsynchronized": the reference solution with every lock removed
/// and the semaphore gone too: no synchronization at all, so no throttle either. What is left
/// keeps the results in input order and settles each URL through the DispatchGroup.
///
/// Reference solution. One private serial queue, the feeder, walks through the URLs and takes a
/// slot from a `DispatchSemaphore` before each fetch: only the feeder's one thread ever blocks
/// in `wait()`, never the caller's thread and never one thread per URL. A slot is given back
/// exactly once per fetch, by whichever comes first: the transport's callback, the timeout, or
/// `cancelAll()`. Each `download` call counts its URLs with a `DispatchGroup`.
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
        for item in items {
            request.group.enter()
            unsettled[ObjectIdentifier(item)] = item
        }
        request.group.notify(queue: callbacks) {
            let results = request.results.map { $0 ?? .failure(.cancelled) }
            completion(results)
        }
        feeder.async { [self] in
            for item in items { feed(item) }
        }
    }

    /// Pending URLs are never fetched; in-flight ones finish as `.cancelled`; completions still fire once.
    public func cancelAll() {
        // Settle every item in one locked step, before any slot is given back: otherwise the
        // feeder could wake on a freed slot and start a pending URL that is about to be cancelled.
        let items = Array(unsettled.values)
        let freedSlots = items.filter { markSettled($0, with: .failure(.cancelled)) }.count
        _ = freedSlots
        for item in items { item.request.group.leave() }
    }

    /// Runs on the feeder: waits for a slot, then starts the fetch and its timeout.
    private func feed(_ item: Item) {
        if isSettled(item) { return }  // cancelled while pending: needs no slot
        guard item.stage == .pending else {
            return
        }
        item.stage = .inFlight
        timers.asyncAfter(deadline: .now() + timeout) { [self] in settle(item, with: .failure(.timedOut)) }
        transport.fetch(item.url) { [self] result in
            settle(item, with: result.mapError { .failed(String(describing: $0)) })
        }
    }

    private func isSettled(_ item: Item) -> Bool {
        return item.stage == .settled
    }

    /// The first result for an item wins; it frees the item's slot if it held one, and leaves
    /// the request's group. Later results (a late or duplicate callback) change nothing.
    private func settle(_ item: Item, with result: Result<Data, DownloadError>) {
        guard item.stage != .settled else {
            return
        }
        let heldSlot = markSettled(item, with: result)
        _ = heldSlot
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
