import Dispatch
import Foundation

/// Runs one schedule: logical threads take turns holding a baton, so exactly one runs at a time,
/// and the turn may pass only at a twin operation. At each such switch point the strategy picks
/// who runs next among the threads that can. Time is virtual: it moves only when every thread
/// is blocked, to the nearest deadline. When nobody can run, nobody has a deadline and someone
/// still waits, the schedule ends at once as a deadlock.
public final class Scheduler: @unchecked Sendable {
    /// How a schedule ended.
    public enum Outcome: Sendable, Equatable {
        /// Every thread finished and no check failed.
        case completed
        /// A check made with `Model.check` failed.
        case violation(Bilingual)
        /// Nobody could run, nobody had a deadline, and these waited.
        case deadlock(Bilingual)
        /// More switch points than the bound: a thread that spins on a twin operation for ever.
        case stepLimit(Int)
        /// No switch point for the watchdog's whole time: a thread looping with no twin operation.
        case stalled(Double)
    }

    /// One row of the trace.
    public struct Event: Sendable {
        public let step: Int
        public let thread: Int
        public let text: String
        /// The row in Chinese when it is words (nil when it is code, which stays code).
        public let zh: String?
        public let site: Site?
        /// Virtual seconds since the schedule started.
        public let time: Double
        /// A row of the check's own bookkeeping (joining its threads), not of the code under test.
        public let harness: Bool
    }

    // Everything below is read and written only by the thread holding the baton (or, after the
    // schedule ended, by the thread that waited for it): the semaphores order every access.
    public private(set) var threads: [LogicalThread] = []
    public private(set) var events: [Event] = []
    /// Every decision the strategy made, in order: the replay string.
    public private(set) var decisions: [Int] = []
    public private(set) var now: Double = 0
    public private(set) var outcome: Outcome?
    public let strategyName: String
    private var strategy: any Strategy
    private var current: LogicalThread?
    private var steps = 0
    private let maxSteps: Int
    private let ended = DispatchSemaphore(value: 0)
    private var isOver = false

    init(strategy: any Strategy, maxSteps: Int) {
        self.strategy = strategy
        self.strategyName = strategy.name
        self.maxSteps = maxSteps
    }

    /// Runs `body` as the logical thread "main" under `strategy` and returns once the schedule
    /// ended. `watchdog` real seconds without an end give `.stalled`, with no trace: its threads
    /// are still running or parked, and the trace cannot be read safely (they are left behind).
    public static func run(strategy: any Strategy, maxSteps: Int = 20_000, watchdog: Double = 10, _ body: @escaping @Sendable () -> Void) -> Schedule {
        let scheduler = Scheduler(strategy: strategy, maxSteps: maxSteps)
        let main = scheduler.makeThread(name: "main", body)
        scheduler.current = main
        main.baton.signal()
        if scheduler.ended.wait(timeout: .now() + watchdog) == .timedOut {
            return Schedule(outcome: .stalled(watchdog), events: [], threadNames: [], decisions: [], strategyName: scheduler.strategyName, violationEvent: nil)
        }
        // `ended` was signalled after the last write to all of these.
        return Schedule(
            outcome: scheduler.outcome ?? .completed, events: scheduler.events,
            threadNames: scheduler.threads.map(\.name), decisions: scheduler.decisions,
            strategyName: scheduler.strategyName, violationEvent: scheduler.violationEvent)
    }

    // MARK: - The thread-local "who am I"

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The scheduler and logical thread of the caller, or nil outside a model run.
    public static var current: (scheduler: Scheduler, thread: LogicalThread)? {
        guard let raw = pthread_getspecific(key) else { return nil }
        let thread = Unmanaged<LogicalThread>.fromOpaque(raw).takeUnretainedValue()
        guard let scheduler = thread.scheduler else { return nil }
        return (scheduler, thread)
    }

    // MARK: - Threads

    /// A new logical thread, runnable; it first runs when the strategy picks it.
    @discardableResult
    public func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) -> LogicalThread {
        makeThread(name: name, body)
    }

    private func makeThread(name: String, _ body: @escaping @Sendable () -> Void) -> LogicalThread {
        let thread = LogicalThread(id: threads.count, name: name)
        thread.scheduler = self
        threads.append(thread)
        WorkerPool.shared.run { [self] in
            thread.baton.wait()
            pthread_setspecific(Scheduler.key, Unmanaged.passUnretained(thread).toOpaque())
            body()
            thread.state = .finished
            record(thread, Bilingual("finishes", zh: "结束"), nil)
            pthread_setspecific(Scheduler.key, nil)
            reschedule(from: thread)
        }
        return thread
    }

    // MARK: - What twins call (on the thread holding the baton)

    /// A switch point before an operation: the strategy chooses who runs next (perhaps the
    /// caller); once the caller runs again, `text` is recorded at `site` and the operation follows
    /// at once, so its row stands where it really happened.
    public func step(_ text: @autoclosure () -> String, at site: Site?) {
        guard let me = current else { return }
        yieldTurn(me)
        record(me, text(), site)
    }

    /// A switch point after an operation that already took effect (an unlock, a signal): its row
    /// comes first, then other threads may act on it before the caller goes on.
    public func after(_ text: String, at site: Site?) {
        guard let me = current else { return }
        record(me, text, site)
        yieldTurn(me)
    }

    /// `after(_:at:)` with words after the code, shown in the frame's language.
    public func after(_ words: Bilingual, at site: Site?) {
        guard let me = current else { return }
        record(me, words, site)
        yieldTurn(me)
    }

    private func yieldTurn(_ me: LogicalThread) {
        steps += 1
        if steps > maxSteps {
            end(.stepLimit(maxSteps))
            me.baton.wait()  // parked for good: the run is over
        }
        reschedule(from: me)
    }

    /// "NSLock 2": the second NSLock made in this schedule, so the lanes tell two locks apart.
    public func nextName(_ kind: String) -> String {
        counters[kind, default: 0] += 1
        return "\(kind) \(counters[kind]!)"
    }

    private var counters: [String: Int] = [:]

    /// The timer sources made in this schedule (the `DispatchSourceTimer` twin), for the checks
    /// that count their events and end them.
    public internal(set) var timers: [ModelTimer] = []

    /// Converts a real deadline into virtual time: the real time left, from now on the virtual
    /// clock. nil (or the distant future) waits for ever.
    public func virtualDeadline(secondsFromNow: Double?) -> Double? {
        guard let secondsFromNow, secondsFromNow.isFinite else { return nil }
        return now + max(0, secondsFromNow)
    }

    /// Runs `body` with the caller's rows marked as the check's bookkeeping.
    public func harness<R>(_ body: () -> R) -> R {
        guard let me = current else { return body() }
        me.inHarness = true
        defer { me.inHarness = false }
        return body()
    }

    /// A row of the trace that is not a switch point.
    public func note(_ text: String, at site: Site? = nil) {
        guard let me = current else { return }
        record(me, text, site)
    }

    /// `note(_:at:)` with words, shown in the frame's language.
    public func note(_ words: Bilingual, at site: Site? = nil) {
        guard let me = current else { return }
        record(me, words, site)
    }

    /// Blocks the caller until `wait` is ready (true) or its deadline passes (false). No switch
    /// happens when it is ready already: the caller's own `step` before it was the switch point.
    public func block(_ wait: Wait) -> Bool {
        guard let me = current else { return wait.ready() }
        if wait.ready() { return true }
        if let deadline = wait.deadline, deadline <= now { return false }
        me.state = .blocked(wait)
        record(me, Bilingual("⏸ waits for \(wait.what.en)", zh: "⏸ 等待 \(wait.what.zh)"), nil)
        reschedule(from: me)
        me.state = .runnable
        if wait.ready() {
            record(me, Bilingual("▶ goes on", zh: "▶ 继续"), nil)
            return true
        }
        record(me, wait.onDeadline ?? Bilingual("⏱ gives up at \(Self.format(now))", zh: "⏱ 在 \(Self.format(now)) 放弃"), nil)
        return false
    }

    /// Lets the strategy choose among `count` alternatives (which waiter a `signal()` wakes).
    public func choose(_ count: Int) -> Int {
        guard count > 1 else { return 0 }
        let choice = strategy.choose(count)
        decisions.append(choice)
        return choice
    }

    /// Records a failed property; the schedule goes on to its end, and the first failure wins.
    public func fail(_ message: Bilingual) {
        if let me = current { record(me, Bilingual("✗ \(message.en)", zh: "✗ \(message.zh)"), nil) }
        if violation == nil {
            violation = message
            violationEvent = events.count - 1
        }
    }

    private var violation: Bilingual?
    /// The trace row of the first failed property: the lanes end there.
    private var violationEvent: Int?

    // MARK: - Scheduling

    private func record(_ thread: LogicalThread, _ text: String, _ site: Site?) {
        events.append(Event(step: events.count, thread: thread.id, text: text, zh: nil, site: site, time: now, harness: thread.inHarness))
    }

    /// A row in words, not code: shown in the frame's language.
    private func record(_ thread: LogicalThread, _ words: Bilingual, _ site: Site?) {
        events.append(Event(step: events.count, thread: thread.id, text: words.en, zh: words.zh, site: site, time: now, harness: thread.inHarness))
    }

    private func isEnabled(_ thread: LogicalThread) -> Bool {
        switch thread.state {
        case .runnable: true
        case .blocked(let wait): wait.timedOut || wait.ready()
        case .finished: false
        }
    }

    /// Hands the baton to the next thread, or ends the schedule; returns when `me` runs again
    /// (at once for a finished thread).
    private func reschedule(from me: LogicalThread) {
        let iAmFinished = me.isFinished
        guard let next = pickNext(running: me) else {
            end(nil)
            if !iAmFinished { me.baton.wait() }  // a deadlocked thread stays parked
            return
        }
        if next === me { return }
        current = next
        next.baton.signal()
        if !iAmFinished { me.baton.wait() }
    }

    private func pickNext(running: LogicalThread) -> LogicalThread? {
        while true {
            let enabled = threads.filter(isEnabled)
            if !enabled.isEmpty {
                let index = enabled.count == 1 ? 0 : strategy.pick(among: enabled.map(\.id), running: running.id, step: decisions.count + 1)
                if enabled.count > 1 { decisions.append(index) }
                return enabled[index]
            }
            // Nobody can run: move virtual time to the nearest deadline, if any.
            var soonest: Double?
            for thread in threads {
                if case .blocked(let wait) = thread.state, let deadline = wait.deadline {
                    soonest = min(soonest ?? deadline, deadline)
                }
            }
            guard let soonest else { return nil }
            now = max(now, soonest)
            for thread in threads {
                if case .blocked(let wait) = thread.state, let deadline = wait.deadline, deadline <= now {
                    wait.timedOut = true
                }
            }
        }
    }

    private func end(_ forced: Outcome?) {
        guard !isOver else { return }
        isOver = true
        if let forced {
            outcome = forced
        } else if let violation {
            outcome = .violation(violation)
        } else if threads.allSatisfy(\.isFinished) {
            outcome = .completed
        } else {
            outcome = .deadlock(describeDeadlock())
        }
        ended.signal()
    }

    /// Who waits for what, and for whom.
    private func describeDeadlock() -> Bilingual {
        var en: [String] = []
        var zh: [String] = []
        for thread in threads {
            guard case .blocked(let wait) = thread.state else { continue }
            let holder = wait.holder()
            let forWhom = holder.map { $0 === thread ? " held by itself" : " held by \($0.name)" } ?? ""
            let forWhomZh = holder.map { $0 === thread ? "，持有者是它自己" : "，持有者是 \($0.zhName)" } ?? ""
            en.append("\(thread.name) waits at \(wait.site) for \(wait.what.en)\(forWhom)")
            zh.append("\(thread.zhName) 在 \(wait.site) 等待 \(wait.what.zh)\(forWhomZh)")
        }
        return Bilingual(
            "Deadlock: no thread can go on. " + en.joined(separator: "; ") + ".",
            zh: "死锁：没有线程能继续执行。" + zh.joined(separator: "；") + "。")
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}

/// What one schedule did: how it ended, its trace and its decisions.
public struct Schedule: Sendable {
    public let outcome: Scheduler.Outcome
    public let events: [Scheduler.Event]
    public let threadNames: [String]
    public let decisions: [Int]
    public let strategyName: String
    /// The trace row where the first property failed, if one did.
    public let violationEvent: Int?

    public var failed: Bool { outcome != .completed }
}
