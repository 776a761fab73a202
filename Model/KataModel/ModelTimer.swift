/// The state machine behind the `DispatchSourceTimer` twin: a logical thread ("timer 1") that
/// waits in virtual time for the next deadline and then queues the event handler as a block on
/// the source's target queue. libdispatch's life-cycle rules are failures the model reports:
/// a source is created inactive; `resume()` or `activate()` starts it; a `resume()` with nothing
/// to balance is an over-resume; releasing a source that is inactive or suspended traps (the
/// twin reports that from its `deinit`). An event that comes while the previous one's handler
/// has not started yet is merged with it (libdispatch coalesces a source's events); a cancelled
/// source starts no handler again, even one already queued, and its cancel handler runs once,
/// on the target queue, after the handler in progress.
///
/// A repeating timer never ends by itself, and virtual time moves to its deadline whenever
/// nobody else can run: a check that starts one ends it with `ModelTimer.endAll()` after its
/// properties are stated (what fired after `stop()` is counted in `handlerStarts`).
public final class ModelTimer: @unchecked Sendable {
    public let name: String
    let queue: ModelQueue
    /// Where `makeTimerSource` was called: the lanes' line for a release.
    public let created: Site
    var handler: (@Sendable () -> Void)?
    var handlerSite: Site
    var cancelHandler: (@Sendable () -> Void)?
    var cancelHandlerSite: Site?
    /// Created inactive, as libdispatch creates a source.
    private(set) var isInactive = true
    private(set) var suspensions = 0
    public private(set) var isCancelled = false
    /// The check's end (`endAll`) or the source's release: no more events, nothing reported.
    private var isEnded = false
    /// Virtual time of the next event, in whole nanoseconds (so that a tenth repeated three
    /// times is the same instant as a check's `.now() + 0.3`); nil when not scheduled (or a
    /// one-shot that fired).
    private var deadline: UInt64?
    private var repeating: UInt64?
    /// Bumped by every change the timer thread must look at again.
    private var version = 0
    private var eventQueued = false
    private var thread: LogicalThread?
    /// Virtual times at which the event handler started.
    public private(set) var handlerStarts: [Double] = []

    public init(queue: ModelQueue, at site: Site) {
        let scheduler = Scheduler.current?.scheduler
        name = scheduler?.nextName("DispatchSourceTimer") ?? "DispatchSourceTimer"
        self.queue = queue
        created = site
        handlerSite = site
        scheduler?.timers.append(self)
        scheduler?.note("makeTimerSource on \(queue.label) → \(name) (inactive)", at: site)
    }

    /// Resumed, not suspended, not cancelled: it fires at its deadlines.
    public var isArmed: Bool { !isInactive && suspensions == 0 && !isCancelled && !isEnded }

    /// `deadline` nil is the distant future; `repeating` in nanoseconds, infinite for none.
    public func schedule(deadline: UInt64?, repeating: Double, at site: Site) {
        Scheduler.current?.scheduler.step("schedule on \(name)", at: site)
        self.deadline = deadline
        self.repeating = repeating.isFinite && repeating >= 1 && repeating < 1e18 ? UInt64(repeating.rounded()) : nil
        version += 1
    }

    public func setEventHandler(_ body: (@Sendable () -> Void)?, at site: Site) {
        Scheduler.current?.scheduler.note("setEventHandler on \(name)", at: site)
        handler = body
        handlerSite = site
    }

    public func setCancelHandler(_ body: (@Sendable () -> Void)?, at site: Site) {
        Scheduler.current?.scheduler.note("setCancelHandler on \(name)", at: site)
        cancelHandler = body
        cancelHandlerSite = site
    }

    /// `resume()` on an inactive source activates it; otherwise it balances a `suspend()`, and
    /// with nothing to balance it is libdispatch's over-resume trap.
    public func resume(at site: Site) {
        guard let (scheduler, me) = Scheduler.current else { return }
        if isInactive {
            isInactive = false
            startThread(scheduler)
        } else if suspensions > 0 {
            suspensions -= 1
        } else {
            scheduler.note("resume() on \(name)", at: site)
            scheduler.fail(Bilingual(
                "\(me.name) called resume() on \(name) at \(site), which is not suspended: libdispatch stops the process here (over-resume; a source is resumed once, after it is made)",
                zh: "\(me.name) 在 \(site) 对未挂起的 \(name) 调用 resume()：libdispatch 会在这里终止进程（over-resume；定时源创建后只能 resume 一次）"))
            return
        }
        version += 1
        scheduler.after("resume() on \(name)", at: site)
    }

    /// `activate()` starts an inactive source; on an active one it does nothing.
    public func activate(at site: Site) {
        guard let (scheduler, _) = Scheduler.current else { return }
        if isInactive {
            isInactive = false
            startThread(scheduler)
            version += 1
        }
        scheduler.after("activate() on \(name)", at: site)
    }

    public func suspend(at site: Site) {
        Scheduler.current?.scheduler.step("suspend() on \(name)", at: site)
        suspensions += 1
        version += 1
    }

    public func cancel(at site: Site) {
        Scheduler.current?.scheduler.step("cancel() on \(name)", at: site)
        isCancelled = true
        version += 1
    }

    /// The twin's last reference is gone. Releasing an inactive or suspended source is a
    /// libdispatch trap ("Release of an inactive object", "Release of a suspended object":
    /// `_dispatch_lane_xref_dispose`, swift-corelibs-libdispatch src/queue.c). A running one goes
    /// on firing: `_dispatch_source_xref_dispose` (src/source.c) only wakes the source, and the
    /// reference its event machinery holds keeps it, and its handler, alive until it is cancelled.
    public func released() {
        // Neither cancel() nor the check's end (`endAll`) excuses the release of a source that
        // is not running: libdispatch looks at its suspension state only.
        guard let (scheduler, me) = Scheduler.current else { return }
        if isInactive || suspensions > 0 {
            let kind = isInactive ? "inactive" : "suspended"
            let state = isInactive ? "inactive (never resumed or activated)" : "suspended"
            let stateZh = isInactive ? "处于未激活状态（从未 resume 或 activate）" : "处于挂起状态"
            scheduler.fail(Bilingual(
                "\(me.name) released \(name) (made at \(created)) while it was \(state): libdispatch stops the process here (\"Release of an \(kind) object\")",
                zh: "\(me.name) 释放了 \(name)（创建于 \(created)），而它\(stateZh)：libdispatch 会在这里终止进程（\"Release of an \(kind) object\"）"))
            isEnded = true
            version += 1
        } else if !isEnded && !isCancelled {
            scheduler.note(Bilingual("\(name) released without cancel(): it goes on firing", zh: "\(name) 未 cancel() 就被释放：它继续触发"), at: nil)
        }
    }

    /// Ends every timer of the running schedule, so that it can finish: a check calls it once
    /// its properties are stated. Not a switch point; no handler or cancel handler runs after it.
    public static func endAll() {
        guard let (scheduler, _) = Scheduler.current else { return }
        for timer in scheduler.timers where !timer.isEnded {
            timer.isEnded = true
            timer.version += 1
        }
    }

    /// The timers made in the running schedule.
    public static var all: [ModelTimer] { Scheduler.current?.scheduler.timers ?? [] }

    // MARK: - The timer thread

    private func startThread(_ scheduler: Scheduler) {
        guard thread == nil else { return }
        thread = scheduler.spawn("timer \(name.split(separator: " ").last ?? "")") { [self] in run() }
    }

    private func run() {
        guard let (scheduler, _) = Scheduler.current else { return }
        while !isEnded && !isCancelled {
            let seen = version
            let wakeAt = isArmed ? deadline.map { Double($0) / 1e9 } : nil
            let changed = scheduler.block(Wait(
                what: Bilingual(wakeAt == nil ? "\(name) to be resumed or scheduled" : "\(name)'s next deadline", zh: wakeAt == nil ? "\(name) 被 resume 或设定时间" : "\(name) 的下一个触发时间"),
                site: handlerSite, deadline: wakeAt,
                onDeadline: Bilingual("⏱ \(name) fires", zh: "⏱ \(name) 触发"),
                until: { [unowned self] in version != seen }))
            guard !changed, wakeAt != nil, let due = deadline else { continue }
            deadline = repeating.map { due + $0 }
            fire(scheduler)
        }
        guard isCancelled, !isEnded else { return }
        if let cancelHandler, let site = cancelHandlerSite {
            queue.async(barrier: false, at: site) { [self] in
                guard !isEnded else { return }
                cancelHandler()
            }
        }
    }

    private func fire(_ scheduler: Scheduler) {
        guard !eventQueued else {
            scheduler.note(Bilingual("its previous event has not been handled yet: merged with it", zh: "上一次事件尚未处理：与之合并"), at: nil)
            return
        }
        eventQueued = true
        queue.async(barrier: false, at: handlerSite) { [self] in
            eventQueued = false
            guard !isCancelled, !isEnded, let handler else {
                Scheduler.current?.scheduler.note(Bilingual("\(name) was cancelled: its handler does not run", zh: "\(name) 已取消：处理程序不运行"), at: nil)
                return
            }
            handlerStarts.append(Scheduler.current?.scheduler.now ?? 0)
            handler()
        }
    }
}
