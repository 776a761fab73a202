import AsyncBridge
import Foundation
import KataTestSupport

/// An error a fake client answers with; `id` tells which one came through.
struct FakeError: Error, Equatable, CustomStringConvertible {
    let id: String
    var description: String { "FakeError(\(id))" }
}

/// What the fake client does with one fetch.
enum Plan: Sendable {
    /// Calls back before `fetch` returns, on the caller's thread (a cached answer).
    case now(Result<Data, any Error>)
    /// Calls back on a global queue, at once or after `delay` seconds.
    case soon(Result<Data, any Error>, delay: Double = 0)
    /// Calls back twice at the same moment, from two threads released together.
    case twice(Result<Data, any Error>, Result<Data, any Error>)
    /// Keeps the callback until the check calls `release`; a safety net answers it with an error
    /// after `FakeClient.holdLimit` seconds, so that code that blocks a thread while it waits
    /// (a semaphore) cannot keep the test process stuck.
    case hold
    /// Never calls back, whatever happens (only in isolated checks), unless the check calls `releaseLate`.
    case never
}

/// The data a fake client returns for `key`.
func payload(_ key: String) -> Data { Data("data for \(key)".utf8) }

/// A `LegacyClient` whose behaviour each check chooses, and that records what it was asked.
final class FakeClient: LegacyClient, @unchecked Sendable {
    static let holdLimit: Double = 4

    private let plan: @Sendable (_ key: String, _ call: Int) -> Plan
    private let state = Locked(State())

    private struct State {
        var fetched: [String] = []
        var held: [(id: Int, key: String, completion: @Sendable (Result<Data, any Error>) -> Void)] = []
        var never: [@Sendable (Result<Data, any Error>) -> Void] = []
        var cancels: [Int] = []
        var answered = 0
        /// Set by `releaseAll(andLater: true)`: how to answer a `.hold` that comes after it.
        var laterHolds: (@Sendable (String) -> Result<Data, any Error>)?
    }

    init(_ plan: @escaping @Sendable (_ key: String, _ call: Int) -> Plan) {
        self.plan = plan
    }

    func fetch(_ key: String, completion: @escaping @Sendable (Result<Data, any Error>) -> Void) -> any LegacyRequest {
        let counted: @Sendable (Result<Data, any Error>) -> Void = { [weak self] result in
            self?.state.withLock { $0.answered += 1 }
            completion(result)
        }
        // Counted, decided and (for `.hold`) held in one step under the lock: a check that sees
        // the fetch counted, or that releases every held fetch, never finds it half registered
        // (counted but not yet held, so missed by the release and kept until the safety net).
        let (call, decided) = state.withLock { state -> (Int, Plan) in
            let call = state.fetched.count
            state.fetched.append(key)
            let planned = plan(key, call)
            guard case .hold = planned else { return (call, planned) }
            if let answer = state.laterHolds { return (call, .soon(answer(key))) }
            state.held.append((call, key, counted))
            return (call, .hold)
        }
        let request = FakeRequest(id: call, client: self)
        switch decided {
        case .now(let result):
            counted(result)
        case .soon(let result, let delay):
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { counted(result) }
        case .twice(let first, let second):
            let together = StartBarrier(parties: 2)
            Thread { together.arrive(); counted(first) }.start()
            Thread { together.arrive(); counted(second) }.start()
        case .hold:
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.holdLimit) { [weak self] in
                self?.release(call, with: .failure(FakeError(id: "safety net: held for \(Self.holdLimit) s")))
            }
        case .never:
            state.withLock { $0.never.append(counted) }
        }
        return request
    }

    /// Answers every held fetch (once each) on a global queue, with `result(key)`. With
    /// `andLater`, every fetch planned `.hold` from now on is answered at once with it too (in the
    /// same step under the lock, so that no fetch slips in between and stays held).
    func releaseAll(andLater: Bool = false, with result: @escaping @Sendable (String) -> Result<Data, any Error>) {
        let held = state.withLock { state in
            defer { state.held.removeAll() }
            if andLater { state.laterHolds = result }
            return state.held
        }
        for (_, key, completion) in held {
            DispatchQueue.global().async { completion(result(key)) }
        }
    }

    /// Answers one held fetch, if it is still held.
    func release(_ id: Int, with result: Result<Data, any Error>) {
        let completion = state.withLock { state -> (@Sendable (Result<Data, any Error>) -> Void)? in
            guard let index = state.held.firstIndex(where: { $0.id == id }) else { return nil }
            return state.held.remove(at: index).completion
        }
        completion?(result)
    }

    /// Calls back every `.never` fetch now, on this thread: the late answer after a cancellation.
    func releaseLate(with result: Result<Data, any Error>) {
        for completion in state.withLock({ $0.never }) { completion(result) }
    }

    fileprivate func cancelled(_ id: Int) { state.withLock { $0.cancels.append(id) } }

    /// The keys asked for, in order.
    var fetched: [String] { state.withLock { $0.fetched } }
    var fetchCount: Int { state.withLock { $0.fetched.count } }
    /// How many held fetches have not been answered yet.
    var heldCount: Int { state.withLock { $0.held.count } }
    /// How many times a request's `cancel()` was called.
    var cancelCount: Int { state.withLock { $0.cancels.count } }
    /// How many callbacks the client has made.
    var answerCount: Int { state.withLock { $0.answered } }
}

/// The request a fake client returns; `cancel()` is recorded and changes nothing else.
final class FakeRequest: LegacyRequest, @unchecked Sendable {
    let id: Int
    private weak var client: FakeClient?
    init(id: Int, client: FakeClient) {
        self.id = id
        self.client = client
    }
    func cancel() { client?.cancelled(id) }
}
