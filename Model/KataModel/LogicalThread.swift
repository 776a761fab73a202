import Dispatch

/// One thread of the program under the model: a check's thread or a queue's block. Backed by a
/// real thread that runs only while it holds the baton.
public final class LogicalThread: @unchecked Sendable {
    public let id: Int
    /// What the learner recognizes: "reader 1", "queue 'dictionary' block 2".
    public let name: String
    /// The same in Chinese, for the Chinese frame: "读者 1", "队列 'dictionary' 块 2".
    public var zhName: String { ThreadNames.chinese(name) }
    let baton = DispatchSemaphore(value: 0)
    var state: State = .runnable
    /// The queues this thread is running a block of, innermost last (for `getSpecific`).
    public var queueStack: [AnyObject] = []
    /// True while the check's own bookkeeping runs (a join): its rows are left out of the lanes.
    var inHarness = false
    /// Set once, before the thread first runs.
    weak var scheduler: Scheduler?

    enum State {
        case runnable
        case blocked(Wait)
        case finished
    }

    init(id: Int, name: String) {
        self.id = id
        self.name = name
    }

    public var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }
}

/// Why a thread cannot go on, and when it can.
public final class Wait {
    /// Read by whichever thread holds the baton, never concurrently.
    let ready: () -> Bool
    /// Virtual time at which the wait gives up; nil waits for ever.
    let deadline: Double?
    /// "the lock of NSLock at Bank.swift:12", in both languages.
    let what: Bilingual
    /// The thread the waiter waits for, when one is known (the lock's owner).
    let holder: () -> LogicalThread?
    let site: Site
    var timedOut = false
    /// The row when the deadline passes ("⏱ gives up at 2 s" unless said otherwise).
    let onDeadline: Bilingual?

    public init(what: Bilingual, site: Site, deadline: Double? = nil, onDeadline: Bilingual? = nil, holder: @escaping () -> LogicalThread? = { nil }, until ready: @escaping () -> Bool) {
        self.what = what
        self.onDeadline = onDeadline
        self.site = site
        self.deadline = deadline
        self.holder = holder
        self.ready = ready
    }
}
