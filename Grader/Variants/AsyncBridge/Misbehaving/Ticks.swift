import Dispatch
import KataTripwire

/// Ticks 0, 1, 2, ... from a DispatchSourceTimer every `interval`; when the consumer stops
/// iterating (break, or its task is cancelled) the timer is cancelled. `onFire` runs in the
/// timer's handler each time it fires (the checks count fires after the consumer stopped).
///
/// Build the stream with `AsyncStream { continuation in … }`: make and schedule the timer, yield
/// from its handler, cancel it in `continuation.onTermination`, and resume it last.
public func ticks(every interval: DispatchTimeInterval, onFire: (@Sendable () -> Void)? = nil) -> AsyncStream<Int> {
    Tripwire.call()
    // TODO: a stream that ticks. This one ends at once, without a single value.
    return AsyncStream { continuation in continuation.finish() }
}
