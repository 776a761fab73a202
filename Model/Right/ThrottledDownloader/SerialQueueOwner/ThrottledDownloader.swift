import Dispatch
import Foundation

/// Downloads many URLs with at most `maxConcurrent` transfers in flight.
///
/// A right implementation in another style than the reference (for the model and as a grading
/// fixture): no lock. One serial queue, `state`, owns every stage, result and count; the
/// transport's callbacks and the timers hop onto it with `async`, the feeder and `cancelAll()` with
/// `sync`. The feeder, a serial queue of its own, is the only thread that waits on the semaphore.
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

    private enum Stage { case pending, inFlight, settled }

    private final class Item: @unchecked Sendable {
        let url: URL
        let index: Int
        let call: Call
        var stage = Stage.pending
        init(url: URL, index: Int, call: Call) {
            self.url = url
            self.index = index
            self.call = call
        }
    }

    private let transport: any Transport
    private let timeout: DispatchTimeInterval
    private let slots: DispatchSemaphore
    /// Owns `unsettled` and every item's stage and every call's results.
    private let state = DispatchQueue(label: "ThrottledDownloader.state")
    private let feeder = DispatchQueue(label: "ThrottledDownloader.feeder")
    private let timers = DispatchQueue(label: "ThrottledDownloader.timers")
    private let delivery = DispatchQueue(label: "ThrottledDownloader.delivery")
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
        guard !urls.isEmpty else {
            delivery.async { completion([]) }
            return
        }
        let call = Call(count: urls.count, completion: completion)
        let items = urls.enumerated().map { Item(url: $1, index: $0, call: call) }
        // Queued before the feeder's first look and before any later cancelAll(): FIFO.
        state.async { [self] in
            for item in items { unsettled[ObjectIdentifier(item)] = item }
        }
        feeder.async { [self] in
            for item in items { feed(item) }
        }
    }

    /// Pending URLs are never fetched; in-flight ones finish as `.cancelled`; completions still fire once.
    public func cancelAll() {
        state.sync {
            // One block on the state queue: the feeder sees every item settled before any slot
            // it could take is given back.
            for item in Array(unsettled.values) {
                settleOnState(item, with: .failure(.cancelled))
            }
        }
    }

    /// Runs on the feeder: waits for a slot, then starts the fetch and its timeout.
    private func feed(_ item: Item) {
        if state.sync(execute: { item.stage == .settled }) { return }  // cancelled while pending
        slots.wait()
        let start = state.sync { () -> Bool in
            guard item.stage == .pending else { return false }
            item.stage = .inFlight
            return true
        }
        guard start else {
            slots.signal()  // cancelled while waiting for the slot
            return
        }
        timers.asyncAfter(deadline: .now() + timeout) { [self] in
            state.async { [self] in settleOnState(item, with: .failure(.timedOut)) }
        }
        transport.fetch(item.url) { [self] result in
            let outcome = result.mapError { DownloadError.failed(String(describing: $0)) }
            state.async { [self] in settleOnState(item, with: outcome) }
        }
    }

    /// On the state queue: the first result for an item wins, frees its slot if it held one, and
    /// delivers the call's results when it was the last one open.
    private func settleOnState(_ item: Item, with result: Result<Data, DownloadError>) {
        guard item.stage != .settled else { return }
        let heldSlot = item.stage == .inFlight
        item.stage = .settled
        unsettled[ObjectIdentifier(item)] = nil
        let call = item.call
        call.results[item.index] = result
        call.open -= 1
        if heldSlot { slots.signal() }
        if call.open == 0 {
            let results = call.results.map { $0 ?? .failure(.cancelled) }
            delivery.async { call.completion(results) }
        }
    }
}
