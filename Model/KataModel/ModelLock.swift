/// The state machine behind the twins of `NSLock`, `NSRecursiveLock`, `Mutex` and the lock inside
/// `NSCondition`: an owner, and a depth for the recursive kind.
public final class ModelLock: @unchecked Sendable {
    public let name: String
    let recursive: Bool
    public private(set) var owner: LogicalThread?
    private var depth = 0

    public init(kind: String, recursive: Bool = false) {
        name = Scheduler.current?.scheduler.nextName(kind) ?? kind
        self.recursive = recursive
    }

    var waitText: Bilingual { Bilingual(name, zh: name) }

    /// Waits until the lock is free (or the caller's, when recursive), then takes it; false when
    /// `deadline` (virtual) passed first.
    @discardableResult
    public func lock(at site: Site, text: String = "lock()", deadline: Double? = nil) -> Bool {
        guard let (scheduler, me) = Scheduler.current else { depth += 1; return true }
        scheduler.step("\(text) on \(name)", at: site)
        return acquire(scheduler, me, site, deadline: deadline)
    }

    func acquire(_ scheduler: Scheduler, _ me: LogicalThread, _ site: Site, deadline: Double? = nil) -> Bool {
        if recursive && owner === me {
            depth += 1
            return true
        }
        let got = scheduler.block(Wait(what: waitText, site: site, deadline: deadline, holder: { [unowned self] in owner }, until: { [unowned self] in owner == nil }))
        if got {
            owner = me
            depth = 1
        }
        return got
    }

    /// Takes the lock if that needs no wait.
    public func tryLock(at site: Site) -> Bool {
        guard let (scheduler, me) = Scheduler.current else { depth += 1; return true }
        scheduler.step("try() on \(name)", at: site)
        if owner == nil || (recursive && owner === me) {
            owner = me
            depth += 1
            scheduler.note(Bilingual("→ got it", zh: "→ 拿到了"))
            return true
        }
        scheduler.note(Bilingual("→ false: held by \(owner!.name)", zh: "→ false：被 \(owner!.zhName) 持有"))
        return false
    }

    public func unlock(at site: Site, text: String = "unlock()") {
        guard let (scheduler, me) = Scheduler.current else { depth -= 1; return }
        guard owner === me else {
            scheduler.note("\(text) on \(name)", at: site)
            scheduler.fail(Bilingual(
                "\(me.name) called \(text) on \(name) at \(site) without holding it",
                zh: "\(me.zhName) 在 \(site) 对 \(name) 调用 \(text)，但并未持有这把锁"))
            return
        }
        depth -= 1
        if depth == 0 { owner = nil }
        // The switch comes after the release: another thread may act on it before this one goes on.
        scheduler.after("\(text) on \(name)", at: site)
    }

    /// Gives the lock up entirely (NSCondition.wait) and returns the depth to restore.
    func release() {
        owner = nil
        depth = 0
    }

    func holds(_ thread: LogicalThread) -> Bool { owner === thread }
}
