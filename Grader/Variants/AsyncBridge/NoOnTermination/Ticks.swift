import Dispatch

/// Ticks 0, 1, 2, ... from a DispatchSourceTimer every `interval`; when the consumer stops
/// iterating (break, or its task is cancelled) the timer is cancelled. `onFire` runs in the
/// timer's handler each time it fires (the checks count fires after the consumer stopped).
///
/// Grader variant "NoOnTermination": the reference without `continuation.onTermination`; its event
/// handler holds the timer instead (a timer that nothing holds is freed and never fires). Nothing
/// cancels the timer: after a `break`, a cancelled consumer, or a stream let go without ever being
/// iterated, it fires forever, and every `yield` goes to a stream that has ended. The two checks of
/// the timer's end catch it: the one of `break` (and of the stream let go) and the one of the
/// consuming task cancelled.
public func ticks(every interval: DispatchTimeInterval, onFire: (@Sendable () -> Void)? = nil) -> AsyncStream<Int> {
    AsyncStream { continuation in
        let queue = DispatchQueue(label: "ticks")
        let timer = TimerHandle(DispatchSource.makeTimerSource(queue: queue))
        let counter = TickCounter()
        timer.source.schedule(deadline: .now() + interval, repeating: interval)
        timer.source.setEventHandler {
            withExtendedLifetime(timer) {}  // keeps the timer, and so its handler, alive
            onFire?()
            continuation.yield(counter.next())
        }
        timer.source.resume()
    }
}

/// The timer's handle, held by its own handler here (the reference hands it to `onTermination`).
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
