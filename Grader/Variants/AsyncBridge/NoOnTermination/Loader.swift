import Foundation

/// Loads through the client; concurrent loads of one key share one fetch; a failure is not
/// cached; a cancelled caller stops waiting without cancelling the fetch the others share.
///
/// The actor's state changes only between suspension points, and every `await` is a point where
/// other calls run (reentrancy). So nothing here checks, awaits, then acts on what it checked:
/// `load` records the in-flight fetch *before* its first suspension, and waiting callers are
/// continuations parked in `inFlight`, resumed by `finish` when the one shared fetch ends.
public actor Loader {
    private let client: any LegacyClient
    /// Successful values only: a failure leaves the key absent, so the next load fetches again.
    private var cache: [String: Data] = [:]
    /// For each key being fetched, the callers waiting for it, by waiter number.
    private var inFlight: [String: [Int: CheckedContinuation<Data, any Error>]] = [:]
    private var nextWaiter = 0
    private var fetches = 0

    public init(client: any LegacyClient) {
        self.client = client
    }

    /// How many fetches this loader has started.
    public var fetchCount: Int { fetches }

    public func load(_ key: String) async throws -> Data {
        if let data = cache[key] { return data }
        let waiter = nextWaiter
        nextWaiter += 1
        return try await withTaskCancellationHandler {
            // The closure runs at once, on this actor (the continuation APIs inherit the
            // caller's isolation), so no other call can run between the check and the insert.
            try await withCheckedThrowingContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                if inFlight[key] == nil {
                    inFlight[key] = [:]
                    fetches += 1
                    startFetch(key)
                }
                inFlight[key]?[waiter] = continuation
            }
        } onCancel: {
            // Runs on the canceller's thread, outside the actor: hop onto it to stop waiting.
            // This waiter leaves; the shared fetch goes on for the others (and for the cache).
            Task { await self.stopWaiting(waiter, for: key) }
        }
    }

    /// Starts the one fetch of `key` in a task of its own: no caller's cancellation reaches it.
    private func startFetch(_ key: String) {
        let client = client
        Task {
            let result: Result<Data, any Error>
            do {
                result = .success(try await fetch(key, using: client))
            } catch {
                result = .failure(error)
            }
            finish(key, with: result)
        }
    }

    /// The shared fetch ended: cache a value (never a failure) and resume everyone still waiting.
    private func finish(_ key: String, with result: Result<Data, any Error>) {
        if case .success(let data) = result { cache[key] = data }
        let waiters = inFlight.removeValue(forKey: key) ?? [:]
        for continuation in waiters.values { continuation.resume(with: result) }
    }

    /// A cancelled caller: resume it with CancellationError, unless `finish` already resumed it.
    private func stopWaiting(_ waiter: Int, for key: String) {
        guard let continuation = inFlight[key]?.removeValue(forKey: waiter) else { return }
        continuation.resume(throwing: CancellationError())
    }
}
