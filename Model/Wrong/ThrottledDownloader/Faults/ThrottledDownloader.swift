import Dispatch
import Foundation

/// The wrong downloaders of the model (not grader variants): the reference solution with one
/// fault each, the fault chosen at compile time. Each `Model/Builds/ThrottledDownloader/<Fault>/`
/// module links this file and is built with `-D KATA_WRONG_<Fault>` (`Package.swift`,
/// `modeledBuilds`); the lines under `#else` are the reference's (its semaphore reached through
/// `slots(of:)`, so that `SemaphorePerCall` can give each call its own).
/// - `LateAnswerSignals`: the transport's callback gives its slot back itself, settled or not: a
///   late answer after the timeout signals the semaphore a second time.
/// - `TimeoutAlwaysFrees`: the timer gives the slot back whether or not the answer came first: an
///   answer, then its timeout, free the slot twice.
/// - `UnlockedLook`: `settle` looks at the item's stage without the lock, then settles under it:
///   two settlers (the timeout and the answer, or `cancelAll` and the answer) can both pass the look.
/// - `CancelOneByOne`: `cancelAll` settles and frees item by item, each in its own locked step: the
///   feeder can take a freed slot and fetch a URL that was pending when `cancelAll` began.
/// - `CallerWaits`: `download` runs the feeder's loop itself: the caller waits for slots.
/// - `SemaphorePerCall`: each `download` call throttles with a semaphore of its own: two calls
///   together run twice the limit.
public final class ThrottledDownloader: @unchecked Sendable {
    private final class Request: @unchecked Sendable {
        let group = DispatchGroup()
        var results: [Result<Data, DownloadError>?]
        #if KATA_WRONG_SemaphorePerCall
        let slots: DispatchSemaphore
        init(count: Int, limit: Int) {
            results = Array(repeating: nil, count: count)
            slots = DispatchSemaphore(value: limit)
        }
        #else
        init(count: Int) { results = Array(repeating: nil, count: count) }
        #endif
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
    #if KATA_WRONG_SemaphorePerCall
    private let limit: Int
    #else
    private let slots: DispatchSemaphore
    #endif
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
        #if KATA_WRONG_SemaphorePerCall
        self.limit = maxConcurrent
        #else
        self.slots = DispatchSemaphore(value: maxConcurrent)
        #endif
    }

    /// Returns at once. `completion` runs exactly once, on an internal queue, with one result
    /// per URL in input order.
    public func download(_ urls: [URL], completion: @escaping @Sendable ([Result<Data, DownloadError>]) -> Void) {
        #if KATA_WRONG_SemaphorePerCall
        let request = Request(count: urls.count, limit: limit)
        #else
        let request = Request(count: urls.count)
        #endif
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
        #if KATA_WRONG_CallerWaits
        for item in items { feed(item) }
        #else
        feeder.async { [self] in
            for item in items { feed(item) }
        }
        #endif
    }

    /// Pending URLs are never fetched; in-flight ones finish as `.cancelled`; completions still fire once.
    public func cancelAll() {
        #if KATA_WRONG_CancelOneByOne
        lock.lock()
        let items = unsettled.values.sorted { $0.index < $1.index }
        lock.unlock()
        for item in items {
            lock.lock()
            guard item.stage != .settled else {
                lock.unlock()
                continue
            }
            let heldSlot = markSettled(item, with: .failure(.cancelled))
            lock.unlock()
            if heldSlot { slots(of: item).signal() }
            item.request.group.leave()
        }
        #else
        // Settle every item in one locked step, before any slot is given back: otherwise the
        // feeder could wake on a freed slot and start a pending URL that is about to be cancelled.
        lock.lock()
        let items = Array(unsettled.values)
        let freed = items.filter { markSettled($0, with: .failure(.cancelled)) }
        lock.unlock()
        for item in freed { slots(of: item).signal() }
        for item in items { item.request.group.leave() }
        #endif
    }

    /// The semaphore that throttles `item`.
    private func slots(of item: Item) -> DispatchSemaphore {
        #if KATA_WRONG_SemaphorePerCall
        item.request.slots
        #else
        slots
        #endif
    }

    /// Runs on the feeder: waits for a slot, then starts the fetch and its timeout.
    private func feed(_ item: Item) {
        if isSettled(item) { return }  // cancelled while pending: needs no slot
        slots(of: item).wait()
        lock.lock()
        guard item.stage == .pending else {
            lock.unlock()
            slots(of: item).signal()  // cancelled while waiting for the slot
            return
        }
        item.stage = .inFlight
        lock.unlock()
        #if KATA_WRONG_TimeoutAlwaysFrees
        timers.asyncAfter(deadline: .now() + timeout) { [self] in
            settle(item, with: .failure(.timedOut))
            if !settledByTimeout(item) { slots(of: item).signal() }
        }
        #else
        timers.asyncAfter(deadline: .now() + timeout) { [self] in settle(item, with: .failure(.timedOut)) }
        #endif
        #if KATA_WRONG_LateAnswerSignals
        transport.fetch(item.url) { [self] result in
            let late = isSettled(item)
            settle(item, with: result.mapError { .failed(String(describing: $0)) })
            if late { slots(of: item).signal() }
        }
        #else
        transport.fetch(item.url) { [self] result in
            settle(item, with: result.mapError { .failed(String(describing: $0)) })
        }
        #endif
    }

    #if KATA_WRONG_TimeoutAlwaysFrees
    /// Whether the item's result is the timeout (the timer has then freed the slot in `settle`).
    private func settledByTimeout(_ item: Item) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if case .failure(.timedOut)? = item.request.results[item.index] { return true }
        return false
    }
    #endif

    private func isSettled(_ item: Item) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return item.stage == .settled
    }

    /// The first result for an item wins; it frees the item's slot if it held one, and leaves
    /// the request's group. Later results (a late or duplicate callback) change nothing.
    private func settle(_ item: Item, with result: Result<Data, DownloadError>) {
        #if KATA_WRONG_UnlockedLook
        guard item.stage != .settled else { return }
        lock.lock()
        #else
        lock.lock()
        guard item.stage != .settled else {
            lock.unlock()
            return
        }
        #endif
        let heldSlot = markSettled(item, with: result)
        lock.unlock()
        if heldSlot { slots(of: item).signal() }
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
