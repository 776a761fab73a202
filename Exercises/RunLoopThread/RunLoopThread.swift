import CoreFoundation
import Foundation

/// A thread of its own with a running run loop: blocks and timers run on it, in order, until
/// `stop()`. What AFNetworking 2's network thread, media and socket threads are built on.
///
/// Your task (see README.md in this folder):
/// - `start()` creates a `Thread` whose body gives its run loop something to wait for (a run loop
///   with no input source and no timer returns at once, and the thread ends), then runs that loop
///   until it is told to end. `start()` returns only once the loop is running.
/// - `perform(_:)` runs a block on that thread, in the order blocks were submitted, from any
///   thread. Queueing a block on a run loop does not wake it up: wake it.
/// - `schedule(after:repeating:modes:_:)` adds a `Timer` to the loop thread's run loop (not to the
///   caller's), in each of `modes`.
/// - `stop()` ends the loop and the thread after the blocks already accepted. From another thread
///   it returns once the thread has left its body; from the loop's own thread it returns at once.
///   It may be called twice, from several threads, before `start()`. `CFRunLoopStop` alone does
///   not end `RunLoop.run()`, which starts the loop again.
/// - Before `start()` and once `stop()` has been called, `perform` and `schedule` return false and
///   never run the block. A stopped thread never starts again.
/// - The thread must not keep this object alive: a `RunLoopThread` nobody references any more is
///   freed, and its thread ends.
public final class RunLoopThread: @unchecked Sendable {
    // TODO: the thread, its run loop (a `RunLoop` and its `CFRunLoop`, for `CFRunLoopWakeUp`),
    // a state (not started, running, stopping, ended), and a lock or condition guarding them.

    public init() {}

    /// Starts the thread and its run loop, and returns once the loop is running. Calling it again
    /// does nothing more. After `stop()`, it does nothing.
    public func start() {
        // TODO
    }

    /// Runs `block` on the loop's thread, after every block submitted before it. Returns false,
    /// and never runs the block, before `start()` and once `stop()` has been called.
    @discardableResult
    public func perform(_ block: @escaping @Sendable () -> Void) -> Bool {
        // TODO
        false
    }

    /// Adds a timer that fires on the loop's thread `delay` seconds from now, then every
    /// `interval` seconds if `interval` is given, while the loop runs in one of `modes`. Returns
    /// false, and never fires, before `start()` and once `stop()` has been called.
    @discardableResult
    public func schedule(after delay: TimeInterval, repeating interval: TimeInterval? = nil,
                         modes: [RunLoop.Mode] = [.default], _ block: @escaping @Sendable () -> Void) -> Bool {
        // TODO
        false
    }

    /// Ends the loop and its thread, after the blocks already accepted have run. From another
    /// thread, returns once the thread has left its body. From a block or a timer on the loop's
    /// own thread, returns at once, and the thread ends when that block returns. Calling it again,
    /// or before `start()`, does nothing more.
    public func stop() {
        // TODO
    }
}
