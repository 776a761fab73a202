import Foundation

/// The variant with no synchronization: the reference's `fetch` without its once-guard. The
/// callback and the cancellation handler both resume the continuation, and the request is kept in
/// a plain box that the canceller's thread reads while `client.fetch` writes it.
public func fetch(_ key: String, using client: any LegacyClient) async throws -> Data {
    let box = UnguardedBox()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            box.continuation = continuation
            box.request = client.fetch(key) { result in continuation.resume(with: result) }
        }
    } onCancel: {
        box.request?.cancel()
        box.continuation?.resume(throwing: CancellationError())
    }
}

private final class UnguardedBox: @unchecked Sendable {
    var continuation: CheckedContinuation<Data, any Error>?
    var request: (any LegacyRequest)?
}
