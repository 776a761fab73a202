import CoreFoundation
import Foundation

/// A thread of its own with a running run loop: blocks and timers run on it, in order, until
/// `stop()`. What AFNetworking 2's network thread, media and socket threads are built on.
///
/// Reference solution. The thread keeps its run loop alive with a timer that never fires (a run
/// loop with nothing to wait for returns at once), and runs it pass after pass with
/// `run(mode:before:)` until a flag that only the thread itself reads says to end. Every block,
/// the installation of every timer and the final "end the loop" go through the run loop's own
/// block queue, which keeps them in order, and each is followed by `CFRunLoopWakeUp`: a queued
/// block does not wake a sleeping loop by itself. `stop()` refuses new work under the lock, queues
/// the final block behind everything already accepted, and waits until the thread has left its
/// body, unless it is called on that very thread, which cannot wait for itself.
///
/// The thread's closure holds only `Core`, never the `RunLoopThread`, so dropping the last
/// reference to a `RunLoopThread` runs its `deinit`, which stops the loop.
///
/// Grader variant "DeinitWaitsForThread": the reference solution whose `deinit` also waits until
/// the loop's thread has ended. Let go on another thread, that is only slow; let go inside one
/// of its own blocks, the deinit runs on the loop's thread, which then waits for itself forever.
public final class RunLoopThread: @unchecked Sendable {
    private let core = Core()

    public init() {}

    deinit {
        core.stop(waitForExit: false)
        // Wait until the thread has ended, so that nothing of it outlives its owner.
        core.waitUntilExited()
    }

    /// Starts the thread and its run loop, and returns once the loop is running. Calling it again,
    /// from any thread, does nothing more (it returns once the loop runs). After `stop()`, it
    /// does nothing: a stopped thread never starts again.
    public func start() {
        core.start()
    }

    /// Runs `block` on the loop's thread, after every block submitted before it. Returns false,
    /// and never runs the block, before `start()` and once `stop()` has been called.
    @discardableResult
    public func perform(_ block: @escaping @Sendable () -> Void) -> Bool {
        core.enqueue(block)
    }

    /// Adds a timer that fires on the loop's thread `delay` seconds from now, then every
    /// `interval` seconds if `interval` is given, while the loop runs in one of `modes`. Returns
    /// false, and never fires, before `start()` and once `stop()` has been called.
    @discardableResult
    public func schedule(after delay: TimeInterval, repeating interval: TimeInterval? = nil,
                         modes: [RunLoop.Mode] = [.default], _ block: @escaping @Sendable () -> Void) -> Bool {
        // RunLoop.Mode is a String wrapper: its raw values cross to the loop's thread.
        let names = modes.map(\.rawValue)
        let core = self.core
        return core.enqueue {
            // On the loop's thread: a timer belongs in the run loop of the thread that runs it.
            let timer = Timer(fire: Date(timeIntervalSinceNow: delay), interval: interval ?? 0,
                              repeats: interval != nil) { _ in block() }
            for name in names {
                RunLoop.current.add(timer, forMode: RunLoop.Mode(rawValue: name))
            }
            core.timers.append(timer)
        }
    }

    /// Ends the loop and its thread, after the blocks already accepted have run. From any other
    /// thread, returns once the thread has left its body. From a block or a timer on the loop's
    /// own thread, returns at once, and the thread ends when that block returns. Calling it again,
    /// or before `start()`, does nothing more.
    public func stop() {
        core.stop(waitForExit: true)
    }
}

/// What the thread and the owner share. The thread's closure holds this, never the owner.
private final class Core: @unchecked Sendable {
    enum State { case idle, starting, running, stopping, exited }

    /// Guards `state`, `runLoop`, `cfRunLoop` and `thread`; `changed` is signalled on every
    /// change of `state`.
    private let changed = NSCondition()
    private var state = State.idle
    private var runLoop: RunLoop?
    private var cfRunLoop: CFRunLoop?
    private var thread: Thread?

    /// Read and written on the loop's thread only.
    private var finished = false
    var timers: [Timer] = []

    func start() {
        changed.lock()
        defer { changed.unlock() }
        if state == .idle {
            state = .starting
            let thread = Thread { self.main() }
            thread.stackSize = 1 << 20
            self.thread = thread
            thread.start()
        }
        while state == .starting { changed.wait() }
    }

    /// The thread's body.
    private func main() {
        let loop = RunLoop.current
        // A run loop with no source and no timer returns at once from run(mode:before:): give it
        // something to wait for. (AFNetworking added an NSMachPort, which Linux does not have.)
        let keepAlive = Timer(fire: .distantFuture, interval: 0, repeats: false) { _ in }
        loop.add(keepAlive, forMode: .default)
        changed.lock()
        runLoop = loop
        cfRunLoop = CFRunLoopGetCurrent()
        changed.unlock()
        // This block runs once the loop is running, not before: then start() may return.
        loop.perform(inModes: [.default]) {
            self.changed.lock()
            self.state = .running
            self.changed.broadcast()
            self.changed.unlock()
        }
        while !finished {
            // One pass: returns after CFRunLoopStop, or at once if the mode were empty.
            _ = loop.run(mode: .default, before: .distantFuture)
        }
        for timer in timers { timer.invalidate() }
        timers = []
        keepAlive.invalidate()
        changed.lock()
        // Drop the run loop: a CFRunLoop holds file descriptors until its last reference goes.
        runLoop = nil
        cfRunLoop = nil
        thread = nil
        state = .exited
        changed.broadcast()
        changed.unlock()
    }

    /// Queues `block` on the loop if it is running, and wakes the loop. Checking the state and
    /// queueing happen under one lock, so no block can be queued after the final one.
    func enqueue(_ block: @escaping @Sendable () -> Void) -> Bool {
        changed.lock()
        defer { changed.unlock() }
        guard state == .running, let runLoop, let cfRunLoop else { return false }
        queue(block, on: runLoop, waking: cfRunLoop)
        return true
    }

    private func queue(_ block: @escaping @Sendable () -> Void, on runLoop: RunLoop, waking cfRunLoop: CFRunLoop) {
        runLoop.perform(inModes: [.default], block: block)
        // A queued block does not wake a sleeping loop (CFRunLoopPerformBlock's documentation).
        CFRunLoopWakeUp(cfRunLoop)
    }

    func waitUntilExited() {
        changed.lock()
        defer { changed.unlock() }
        while state != .exited { changed.wait() }
    }

    func stop(waitForExit: Bool) {
        changed.lock()
        defer { changed.unlock() }
        while state == .starting { changed.wait() }
        switch state {
        case .idle:
            state = .exited  // never started: nothing to end, and it never starts now
            changed.broadcast()
            return
        case .running:
            state = .stopping
            changed.broadcast()
            if let runLoop, let cfRunLoop {
                // Behind every block accepted so far: they all run first.
                queue({
                    self.finished = true
                    // Ends this pass of run(mode:before:); the while loop then sees `finished`.
                    CFRunLoopStop(CFRunLoopGetCurrent())
                }, on: runLoop, waking: cfRunLoop)
            }
        case .starting, .stopping, .exited:
            break
        }
        // The loop's own thread cannot wait for itself to end: it ends when this block returns.
        guard waitForExit, Thread.current !== thread else { return }
        while state != .exited { changed.wait() }
    }
}
