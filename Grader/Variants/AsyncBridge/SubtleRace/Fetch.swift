import Foundation

/// Resumes exactly once: with the first callback, or with CancellationError as soon as the task is
/// cancelled (cancelling the request), even if the client never calls back.
///
/// Three parties race to finish one fetch: the client's callback (maybe twice, from two threads),
/// the task's cancellation handler (on whatever thread called `cancel()`), and the start itself
/// (the task may be cancelled before the request exists). `FetchState` lets the first one win and
/// turns the others into no-ops, so the continuation is resumed exactly once.
public func fetch(_ key: String, using client: any LegacyClient) async throws -> Data {
    let state = FetchState()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            // Already cancelled? Then the handler has run (it runs at once in that case) and
            // `install` resumes with CancellationError without starting a request.
            guard state.install(continuation) else { return }
            let request = client.fetch(key) { result in state.resume(with: result) }
            // The callback or a cancellation may already have come; then cancel() the request if needed.
            state.attach(request)
        }
    } onCancel: {
        state.cancel()
    }
}

/// Grader variant "SubtleRace": the reference's once-guard with its lock removed. The logic is the
/// same (the continuation is taken out by whoever resumes it), but two parties that come at the
/// same moment (two callbacks from two threads, a callback and the cancellation handler) both read
/// the continuation before either clears it, and both resume it: a trap when it happens, and a
/// data race on every field whether it happens or not. The checks make the two callbacks come
/// together, and still meet the double resume only in some runs; ThreadSanitizer reports the
/// race every time.
private final class FetchState: @unchecked Sendable {
    private var continuation: CheckedContinuation<Data, any Error>?
    private var request: (any LegacyRequest)?
    private var cancelled = false
    private var settled = false

    /// Stores the continuation; false (and the continuation resumed) if the task is already cancelled.
    func install(_ continuation: CheckedContinuation<Data, any Error>) -> Bool {
        if cancelled {
            settled = true
            continuation.resume(throwing: CancellationError())
            return false
        }
        self.continuation = continuation
        return true
    }

    /// Keeps the request so that a later cancellation can cancel it; cancels it at once if the
    /// task was cancelled while `client.fetch` ran.
    func attach(_ request: any LegacyRequest) {
        let cancelNow = cancelled
        if !cancelNow && !settled { self.request = request }
        if cancelNow { request.cancel() }
    }

    /// The client's callback: the first call resumes, later calls do nothing.
    func resume(with result: Result<Data, any Error>) {
        let continuation = self.continuation
        self.continuation = nil
        settled = true
        request = nil
        continuation?.resume(with: result)
    }

    /// The cancellation handler: resumes with CancellationError unless a result came first,
    /// and cancels the request. Runs on the canceller's thread: it must not block or await.
    func cancel() {
        cancelled = true
        let continuation = self.continuation
        self.continuation = nil
        let request = settled ? nil : self.request
        settled = true
        self.request = nil
        // Resume and cancel: either may run code we do not control.
        continuation?.resume(throwing: CancellationError())
        request?.cancel()
    }
}
