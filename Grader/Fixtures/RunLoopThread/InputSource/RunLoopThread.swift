import CoreFoundation
import Foundation

/// A right RunLoopThread in another style than the reference's: a custom version-0
/// `CFRunLoopSource` is the loop's input source. It keeps the loop alive (no timer that never
/// fires), and its perform callback drains a locked queue of work items in order. Submitting
/// appends under the lock, signals the source and wakes the loop (`CFRunLoopSourceSignal` marks
/// the source ready; only `CFRunLoopWakeUp` makes a sleeping loop look). `stop()` queues a final
/// item behind the accepted ones; the loop's thread runs `CFRunLoopRun()` until that item stops it.
public final class RunLoopThread: @unchecked Sendable {
    private let core = Core()

    public init() {}

    deinit { core.stop(waitForExit: false) }

    public func start() { core.start() }

    @discardableResult
    public func perform(_ block: @escaping @Sendable () -> Void) -> Bool {
        core.submit(.block(block))
    }

    @discardableResult
    public func schedule(after delay: TimeInterval, repeating interval: TimeInterval? = nil,
                         modes: [RunLoop.Mode] = [.default], _ block: @escaping @Sendable () -> Void) -> Bool {
        let names = modes.map(\.rawValue)
        let core = self.core
        return core.submit(.block {
            let timer = Timer(fire: Date(timeIntervalSinceNow: delay), interval: interval ?? 0, repeats: interval != nil) { _ in block() }
            for name in names { RunLoop.current.add(timer, forMode: RunLoop.Mode(rawValue: name)) }
            core.timers.append(timer)
        })
    }

    public func stop() { core.stop(waitForExit: true) }
}

private final class Core: @unchecked Sendable {
    enum Item { case block(@Sendable () -> Void), end }
    enum State { case idle, starting, running, stopping, exited }

    private let lock = NSCondition()
    private var state = State.idle
    private var items: [Item] = []
    private var loop: CFRunLoop?
    private var source: CFRunLoopSource?
    private var thread: Thread?
    /// On the loop's thread only.
    var timers: [Timer] = []

    func start() {
        lock.lock()
        defer { lock.unlock() }
        if state == .idle {
            state = .starting
            let thread = Thread { self.main() }
            self.thread = thread
            thread.start()
        }
        while state == .starting { lock.wait() }
    }

    private func main() {
        var context = CFRunLoopSourceContext()
        context.info = Unmanaged.passUnretained(self).toOpaque()
        context.perform = { info in
            guard let info else { return }
            Unmanaged<Core>.fromOpaque(info).takeUnretainedValue().drain()
        }
        let source = CFRunLoopSourceCreate(nil, 0, &context)
        let loop = CFRunLoopGetCurrent()
        CFRunLoopAddSource(loop, source, kCFRunLoopDefaultMode)
        lock.lock()
        self.loop = loop
        self.source = source
        state = .running
        lock.broadcast()
        lock.unlock()
        // Returns after CFRunLoopStop, called by the final item.
        CFRunLoopRun()
        for timer in timers { timer.invalidate() }
        timers = []
        CFRunLoopSourceInvalidate(source)
        lock.lock()
        self.loop = nil
        self.source = nil
        thread = nil
        state = .exited
        lock.broadcast()
        lock.unlock()
    }

    /// On the loop's thread: runs every item queued so far, in order.
    private func drain() {
        while true {
            lock.lock()
            guard !items.isEmpty else { lock.unlock(); return }
            let item = items.removeFirst()
            lock.unlock()
            switch item {
            case .block(let block): block()
            case .end:
                CFRunLoopStop(CFRunLoopGetCurrent())
                return
            }
        }
    }

    /// Queues `item` while the loop runs; false before start() and after stop().
    func submit(_ item: Item) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard state == .running else { return false }
        post(item)
        return true
    }

    /// With the lock held.
    private func post(_ item: Item) {
        guard let source, let loop else { return }
        items.append(item)
        CFRunLoopSourceSignal(source)
        CFRunLoopWakeUp(loop)
    }

    func stop(waitForExit: Bool) {
        lock.lock()
        defer { lock.unlock() }
        while state == .starting { lock.wait() }
        switch state {
        case .idle:
            state = .exited
            lock.broadcast()
            return
        case .running:
            state = .stopping
            post(.end)
        case .starting, .stopping, .exited:
            break
        }
        guard waitForExit, Thread.current !== thread else { return }
        while state != .exited { lock.wait() }
    }
}
