import Dispatch
import Foundation

/// Why a signal cannot be watched.
public enum SignalWatchError: Error, Equatable {
    /// SIGKILL and SIGSTOP can be neither caught nor ignored: a source for them never fires.
    case cannotBeCaught(Int32)
}

/// Reacts to a Unix signal on a queue, through a signal `DispatchSource`.
public final class SignalWatcher: @unchecked Sendable {
    private let signalNumber: Int32
    private let source: DispatchSourceSignal
    private let lock = NSLock()
    private var cancelled = false

    /// Calls `handler` on `queue` each time the process receives `signal` (several deliveries
    /// before the handler runs may come as one). The signal's default action is set aside first:
    /// a source only observes a signal, and SIGUSR1's default action ends the process.
    public init(signal: Int32, queue: DispatchQueue, handler: @escaping @Sendable () -> Void) throws {
        guard signal != SIGKILL, signal != SIGSTOP else { throw SignalWatchError.cannotBeCaught(signal) }
        signalNumber = signal
        Foundation.signal(signal, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: signal, queue: queue)
        source.setEventHandler(handler: handler)
        source.resume()
    }

    /// Stops watching and gives the signal back its default action. Safe to call twice.
    public func cancel() {
        lock.lock()
        let first = !cancelled
        cancelled = true
        lock.unlock()
        guard first else { return }
        source.cancel()
        Foundation.signal(signalNumber, SIG_DFL)
    }

    deinit {
        cancel()
    }
}
