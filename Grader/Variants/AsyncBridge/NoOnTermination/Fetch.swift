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

/// The once-guard: every field is read and written under one lock, and the continuation is taken
/// out of it (set to nil) by whoever resumes it, so a second resume finds nothing to resume.
private final class FetchState: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Data, any Error>?
    private var request: (any LegacyRequest)?
    private var cancelled = false
    private var settled = false

    /// Stores the continuation; false (and the continuation resumed) if the task is already cancelled.
    func install(_ continuation: CheckedContinuation<Data, any Error>) -> Bool {
        lock.lock()
        if cancelled {
            settled = true
            lock.unlock()
            continuation.resume(throwing: CancellationError())
            return false
        }
        self.continuation = continuation
        lock.unlock()
        return true
    }

    /// Keeps the request so that a later cancellation can cancel it; cancels it at once if the
    /// task was cancelled while `client.fetch` ran.
    func attach(_ request: any LegacyRequest) {
        lock.lock()
        let cancelNow = cancelled
        if !cancelNow && !settled { self.request = request }
        lock.unlock()
        if cancelNow { request.cancel() }
    }

    /// The client's callback: the first call resumes, later calls do nothing.
    func resume(with result: Result<Data, any Error>) {
        lock.lock()
        let continuation = self.continuation
        self.continuation = nil
        settled = true
        request = nil
        lock.unlock()
        continuation?.resume(with: result)
    }

    /// The cancellation handler: resumes with CancellationError unless a result came first,
    /// and cancels the request. Runs on the canceller's thread: it must not block or await.
    func cancel() {
        lock.lock()
        cancelled = true
        let continuation = self.continuation
        self.continuation = nil
        let request = settled ? nil : self.request
        settled = true
        self.request = nil
        lock.unlock()
        // Resume and cancel outside the lock: either may run code we do not control.
        continuation?.resume(throwing: CancellationError())
        request?.cancel()
    }
}
