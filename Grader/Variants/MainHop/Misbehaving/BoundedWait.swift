import Dispatch
import Foundation
import KataTripwire

// The untouched stub, with `Tripwire.call()` first in every public entry point: `grader verify`
// runs it with each KATA_MISBEHAVE misbehaviour and asserts 0 points.

/// What a bounded call returns: the callback's value, or `.timedOut` when it did not come in time.
public enum WaitResult<Value: Sendable>: Sendable {
    case value(Value)
    case timedOut
}

extension WaitResult: Equatable where Value: Equatable {}

/// A callback API made synchronous, with a timeout.
///
/// Your task: `call(timeout:)` starts one request and waits at most `timeout` for its answer. A
/// callback that comes after its call gave up must not crash, must not release a later call, and
/// must not keep anything alive.
public final class SyncClient<Value: Sendable>: Sendable {
    private let request: @Sendable (@escaping @Sendable (Value) -> Void) -> Void

    /// `request` starts one asynchronous request and calls its argument once with the answer,
    /// on any thread, at once or later, or never.
    public init(_ request: @escaping @Sendable (@escaping @Sendable (Value) -> Void) -> Void) {
        Tripwire.call()
        self.request = request
    }

    /// Starts one request and waits at most `timeout` for its answer.
    public func call(timeout: DispatchTimeInterval) -> WaitResult<Value> {
        Tripwire.call()
        // TODO: start the request, wait for its callback (with a timeout), return what came.
        return .timedOut
    }
}
