import Dispatch
import Foundation

/// What a bounded call returns: the callback's value, or `.timedOut` when it did not come in time.
public enum WaitResult<Value: Sendable>: Sendable {
    case value(Value)
    case timedOut
}

extension WaitResult: Equatable where Value: Equatable {}

/// A callback API made synchronous, with a timeout.
public final class SyncClient<Value: Sendable>: Sendable {
    private let request: @Sendable (@escaping @Sendable (Value) -> Void) -> Void

    /// `request` starts one asynchronous request and calls its argument once with the answer,
    /// on any thread, at once or later, or never.
    public init(_ request: @escaping @Sendable (@escaping @Sendable (Value) -> Void) -> Void) {
        self.request = request
    }

    /// Starts one request and waits at most `timeout` for its answer. Each call has its own
    /// semaphore and its own slot: a callback that comes after its call timed out signals only
    /// that call's semaphore, which nobody waits on any more, and is then freed with it.
    public func call(timeout: DispatchTimeInterval) -> WaitResult<Value> {
        let answered = DispatchSemaphore(value: 0)
        let slot = AnswerSlot<Value>()
        request { value in
            slot.store(value)
            answered.signal()
        }
        guard answered.wait(timeout: .now() + timeout) == .success, let value = slot.value else { return .timedOut }
        return .value(value)
    }
}

/// One call's answer, written by the callback's thread and read by the caller.
private final class AnswerSlot<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    func store(_ value: Value) {
        lock.lock()
        if stored == nil { stored = value }
        lock.unlock()
    }

    var value: Value? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
