/// The state machine behind the `DispatchGroup` twin.
public final class ModelGroup: @unchecked Sendable {
    public let name: String
    public private(set) var count = 0
    private var notifications: [(ModelQueue, @Sendable () -> Void, Site)] = []

    public init() {
        name = Scheduler.current?.scheduler.nextName("DispatchGroup") ?? "DispatchGroup"
    }

    public func enter(at site: Site) {
        guard let (scheduler, _) = Scheduler.current else { count += 1; return }
        scheduler.step("enter() on \(name)", at: site)
        count += 1
    }

    public func leave(at site: Site) {
        guard let (scheduler, me) = Scheduler.current else { count -= 1; return }
        guard count > 0 else {
            scheduler.note("leave() on \(name)", at: site)
            scheduler.fail(Bilingual(
                "\(me.name) called leave() on \(name) at \(site) more often than enter() (libdispatch stops the process here)",
                zh: "\(me.zhName) 在 \(site) 对 \(name) 调用 leave() 的次数多于 enter()（libdispatch 会在这里终止进程）"))
            return
        }
        count -= 1
        if count == 0 { fire() }
        scheduler.after("leave() on \(name) (count \(count))", at: site)
    }

    private func fire() {
        let due = notifications
        notifications.removeAll()
        for (queue, body, site) in due { queue.async(barrier: false, at: site, body) }
    }

    public func wait(at site: Site, deadline: Double? = nil) -> Bool {
        guard let (scheduler, _) = Scheduler.current else { return count == 0 }
        scheduler.step("wait() on \(name) (count \(count))", at: site)
        return scheduler.block(Wait(
            what: Bilingual("\(name) to empty", zh: "\(name) 归零"), site: site, deadline: deadline,
            until: { [unowned self] in count == 0 }))
    }

    public func notify(queue: ModelQueue, at site: Site, _ body: @escaping @Sendable () -> Void) {
        notifications.append((queue, body, site))
        if count == 0 { fire() }
    }
}
