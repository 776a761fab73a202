/// The state machine behind the `DispatchQueue` twin. Blocks wait in one FIFO list, `sync`
/// callers and `async` blocks alike. A serial queue runs its first block when nothing runs; a
/// concurrent queue runs any block with no barrier before it or running, and a barrier alone
/// once everything before it has ended. A global queue ignores barriers, as libdispatch does.
public final class ModelQueue: @unchecked Sendable {
    public let label: String
    public let isConcurrent: Bool
    public let isGlobal: Bool
    private var pending: [Entry] = []
    private var running: [Entry] = []
    private var blocksMade = 0
    /// Entries (`async` blocks and `sync` calls) that have started: what a check counts to see
    /// work reach a queue.
    public private(set) var started = 0
    private var specifics: [ObjectIdentifier: Any] = [:]
    /// `suspend()` calls not yet balanced by `resume()`: nothing starts while above zero.
    private var suspensions = 0

    final class Entry: @unchecked Sendable {
        let barrier: Bool
        var thread: LogicalThread?
        init(barrier: Bool) { self.barrier = barrier }
    }

    public init(label: String, concurrent: Bool, global: Bool = false) {
        self.label = label
        isConcurrent = concurrent || global
        isGlobal = global
    }

    private var display: String { "'\(label)'" }

    private func canStart(_ entry: Entry) -> Bool {
        guard suspensions == 0, let index = pending.firstIndex(where: { $0 === entry }) else { return false }
        if !isConcurrent || entry.barrier { return index == 0 && running.isEmpty }
        return !running.contains(where: \.barrier) && !pending[..<index].contains(where: \.barrier)
    }

    private func enqueue(barrier: Bool) -> Entry {
        let entry = Entry(barrier: barrier && !isGlobal)
        pending.append(entry)
        return entry
    }

    /// Waits for the entry's turn, then runs `body` on the calling thread.
    private func runWhenItsTurn<T>(_ entry: Entry, _ scheduler: Scheduler, _ me: LogicalThread, _ site: Site, _ body: () throws -> T) rethrows -> T {
        entry.thread = me
        _ = scheduler.block(Wait(
            what: Bilingual("queue \(display)", zh: "队列 \(display)"), site: site,
            // Nobody holds a suspended queue that runs nothing: it waits for a resume().
            holder: { [unowned self] in
                running.first?.thread ?? (suspensions > 0 ? nil : pending.first { $0 !== entry }?.thread)
            },
            until: { [unowned self] in canStart(entry) }))
        pending.removeAll { $0 === entry }
        running.append(entry)
        started += 1
        me.queueStack.append(self)
        defer {
            me.queueStack.removeLast()
            running.removeAll { $0 === entry }
        }
        return try body()
    }

    public func sync<T>(barrier: Bool, at site: Site, _ body: () throws -> T) rethrows -> T {
        guard let (scheduler, me) = Scheduler.current else { return try body() }
        scheduler.step(barrier ? "barrier sync on \(display)" : "sync on \(display)", at: site)
        let entry = enqueue(barrier: barrier)
        let result = try runWhenItsTurn(entry, scheduler, me, site, body)
        scheduler.after("end of sync on \(display)", at: site)
        return result
    }

    /// Queues `body` as a logical thread of its own, after `delay` virtual seconds if given;
    /// `done` runs on that thread after the body (a group's leave, a work item's notify).
    public func async(barrier: Bool, after delay: Double? = nil, at site: Site, _ body: @escaping @Sendable () -> Void, done: @escaping @Sendable () -> Void = {}) {
        guard let (scheduler, _) = Scheduler.current else {
            preconditionFailure("A DispatchQueue twin cannot run async blocks outside a model run")
        }
        blocksMade += 1
        let name = "queue \(display) block \(blocksMade)"
        let entry: Entry? = delay == nil ? enqueue(barrier: barrier) : nil
        scheduler.spawn(name) { [self] in
            guard let (scheduler, me) = Scheduler.current else { return }
            var entry = entry
            if let delay {
                _ = scheduler.block(Wait(
                    what: Bilingual("\(delay) s to pass", zh: "\(delay) 秒过去"), site: site,
                    deadline: scheduler.virtualDeadline(secondsFromNow: delay), onDeadline: Bilingual("⏱ its \(delay) s have passed", zh: "⏱ 它的 \(delay) 秒已过"),
                    until: { false }))
                entry = enqueue(barrier: barrier)
            }
            runWhenItsTurn(entry!, scheduler, me, site) {
                scheduler.step("starts the block from \(site)", at: nil)
                body()
            }
            done()
        }
        let what = delay.map { "asyncAfter(+\($0) s)" } ?? (barrier ? "barrier async" : "async")
        scheduler.after("\(what) on \(display) → block \(blocksMade)", at: site)
    }

    public func suspend(at site: Site) {
        guard let (scheduler, _) = Scheduler.current else { suspensions += 1; return }
        scheduler.step("suspend() on \(display)", at: site)
        suspensions += 1
    }

    /// A resume with no suspension to balance is libdispatch's over-resume trap: a failure.
    public func resume(at site: Site) {
        guard let (scheduler, me) = Scheduler.current else { suspensions -= 1; return }
        guard suspensions > 0 else {
            scheduler.note("resume() on \(display)", at: site)
            scheduler.fail(Bilingual(
                "\(me.name) called resume() on queue \(display) at \(site), which is not suspended: libdispatch stops the process here (over-resume)",
                zh: "\(me.zhName) 在 \(site) 对未挂起的队列 \(display) 调用 resume()：libdispatch 会在这里终止进程（over-resume）"))
            return
        }
        suspensions -= 1
        scheduler.after("resume() on \(display)", at: site)
    }

    public func setSpecific(_ key: ObjectIdentifier, _ value: Any?) {
        specifics[key] = value
    }

    /// The value the innermost queue the caller runs on has for `key`.
    public static func specific(_ key: ObjectIdentifier) -> Any? {
        guard let (_, me) = Scheduler.current, let queue = me.queueStack.last as? ModelQueue else { return nil }
        return queue.specifics[key]
    }
}
