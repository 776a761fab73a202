/// The state machine behind the `NSCondition` twin: a lock, and the threads waiting to be
/// signalled. A waiter that was signalled still needs the lock back before `wait()` returns.
public final class ModelCondition: @unchecked Sendable {
    public let lock: ModelLock
    private var waiters: [Waiter] = []

    private final class Waiter {
        let thread: LogicalThread
        var signalled = false
        init(thread: LogicalThread) { self.thread = thread }
    }

    public init() {
        lock = ModelLock(kind: "NSCondition")
    }

    public var name: String { lock.name }

    /// Releases the lock, waits for a signal (or the virtual deadline), takes the lock again.
    /// False when the deadline passed without a signal.
    public func wait(at site: Site, text: String = "wait()", deadline: Double? = nil) -> Bool {
        guard let (scheduler, me) = Scheduler.current else {
            preconditionFailure("An NSCondition twin cannot wait outside a model run")
        }
        guard lock.holds(me) else {
            scheduler.note("\(text) on \(name)", at: site)
            scheduler.fail(Bilingual(
                "\(me.name) called \(text) on \(name) at \(site) without holding its lock",
                zh: "\(me.zhName) 在 \(site) 对 \(name) 调用 \(text)，但没有持有它的锁"))
            return true
        }
        let waiter = Waiter(thread: me)
        waiters.append(waiter)
        lock.release()
        scheduler.note(Bilingual("\(text) on \(name): lets the lock go", zh: "对 \(name) 调用 \(text)：放开锁"), at: site)
        let signalled = scheduler.block(Wait(
            what: Bilingual("a signal on \(name)", zh: "\(name) 的 signal"), site: site, deadline: deadline,
            until: { waiter.signalled }))
        if !signalled { waiters.removeAll { $0 === waiter } }
        _ = lock.acquire(scheduler, me, site)
        return signalled
    }

    /// Wakes one waiter (which one is the strategy's choice), or nobody.
    public func signal(at site: Site) {
        guard let (scheduler, _) = Scheduler.current else { return }
        guard !waiters.isEmpty else {
            scheduler.after(Bilingual("signal() on \(name): nobody waits", zh: "对 \(name) 调用 signal()：没有人在等"), at: site)
            return
        }
        let woken = waiters.remove(at: scheduler.choose(waiters.count))
        woken.signalled = true
        scheduler.after(Bilingual("signal() on \(name): wakes \(woken.thread.name)", zh: "对 \(name) 调用 signal()：唤醒 \(woken.thread.zhName)"), at: site)
    }

    public func broadcast(at site: Site) {
        guard let (scheduler, _) = Scheduler.current else { return }
        let woken = waiters
        waiters.removeAll()
        for waiter in woken { waiter.signalled = true }
        let names = woken.map(\.thread.name).joined(separator: ", ")
        let zhNames = woken.map(\.thread.zhName).joined(separator: "、")
        scheduler.after(woken.isEmpty
            ? Bilingual("broadcast() on \(name): nobody waits", zh: "对 \(name) 调用 broadcast()：没有人在等")
            : Bilingual("broadcast() on \(name): wakes \(names)", zh: "对 \(name) 调用 broadcast()：唤醒 \(zhNames)"), at: site)
    }
}
