import Dispatch

/// Ticks 0, 1, 2, ... from a DispatchSourceTimer every `interval`; when the consumer stops
/// iterating (break, or its task is cancelled) the timer is cancelled. `onFire` runs in the
/// timer's handler each time it fires (the checks count fires after the consumer stopped).
///
/// The stream owns the timer. `onTermination` is the one place that hears about every way a
/// consumer can stop: the iterator dropped after `break`, the consuming task cancelled, or the
/// stream finished. It cancels the timer there, and libdispatch then never calls the handler again.
public func ticks(every interval: DispatchTimeInterval, onFire: (@Sendable () -> Void)? = nil) -> AsyncStream<Int> {
    AsyncStream { continuation in
        let queue = DispatchQueue(label: "ticks")
        let timer = TimerHandle(DispatchSource.makeTimerSource(queue: queue))
        let counter = TickCounter()
        timer.source.schedule(deadline: .now() + interval, repeating: interval)
        timer.source.setEventHandler {
            onFire?()
            continuation.yield(counter.next())
        }
        continuation.onTermination = { _ in
            // Resumed below before anyone can end the stream, so cancelling is always safe
            // (releasing a source that was never resumed would trap).
            timer.source.cancel()
        }
        timer.source.resume()
    }
}

/// The timer, handed to `onTermination` (a `@Sendable` closure). A dispatch source is safe to
/// cancel from any thread.
private final class TimerHandle: @unchecked Sendable {
    let source: any DispatchSourceTimer
    init(_ source: any DispatchSourceTimer) { self.source = source }
}

/// The next tick number. Only the timer's handler touches it, and the handler runs on one serial
/// queue, one call at a time: no lock is needed.
private final class TickCounter: @unchecked Sendable {
    private var value = 0
    func next() -> Int {
        defer { value += 1 }
        return value
    }
}
