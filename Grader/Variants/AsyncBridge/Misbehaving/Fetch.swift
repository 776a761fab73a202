import Foundation
import KataTripwire

/// Resumes exactly once: with the first callback, or with CancellationError as soon as the task is
/// cancelled (cancelling the request), even if the client never calls back.
///
/// Your task (see README.md in this folder): bridge `client.fetch(_:completion:)` with
/// `withCheckedThrowingContinuation`, reach the request from `withTaskCancellationHandler`, and
/// guard the continuation so that it is resumed exactly once: by the first callback (a faulty
/// client may call back twice, from two threads) or by the cancellation, whichever comes first.
///
/// Every declaration in this folder is a stub that compiles and never crashes: replace each body.
/// Run `swift test --filter AsyncBridgeTests` to see which check to work on next, and
/// `swift run grader hint AsyncBridge` for a hint.
public func fetch(_ key: String, using client: any LegacyClient) async throws -> Data {
    Tripwire.call()
    // TODO: withTaskCancellationHandler { withCheckedThrowingContinuation { … } } onCancel: { … }
    throw NotImplementedYet("fetch(_:using:)")
}

/// What the stubs throw, so that a check fails at once instead of waiting. Delete it when every
/// stub is filled in.
struct NotImplementedYet: Error, CustomStringConvertible {
    let what: String
    init(_ what: String) { self.what = what }
    var description: String { "\(what) is not implemented yet (a stub)" }
}
