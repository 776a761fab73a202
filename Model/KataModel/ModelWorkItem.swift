/// The state machine behind the `DispatchWorkItem` twin.
public final class ModelWorkItem: @unchecked Sendable {
    public let name: String
    private let body: @Sendable () -> Void
    public private(set) var isCancelled = false
    private var isDone = false
    private var notifications: [(ModelQueue, @Sendable () -> Void, Site)] = []

    public init(_ body: @escaping @Sendable () -> Void) {
        name = Scheduler.current?.scheduler.nextName("DispatchWorkItem") ?? "DispatchWorkItem"
        self.body = body
    }

    /// Runs the body unless cancelled; either way the item is then done and its notifications go.
    public func perform(at site: Site) {
        if !isCancelled {
            body()
        } else {
            Scheduler.current?.scheduler.note(Bilingual("\(name) was cancelled: its body does not run", zh: "\(name) 已被取消：它的任务体不会运行"), at: site)
        }
        isDone = true
        let due = notifications
        notifications.removeAll()
        for (queue, body, site) in due { queue.async(barrier: false, at: site, body) }
    }

    public func cancel(at site: Site) {
        Scheduler.current?.scheduler.step("cancel() on \(name)", at: site)
        isCancelled = true
    }

    public func notify(queue: ModelQueue, at site: Site, _ body: @escaping @Sendable () -> Void) {
        if isDone {
            queue.async(barrier: false, at: site, body)
        } else {
            notifications.append((queue, body, site))
        }
    }

    public func wait(at site: Site, deadline: Double? = nil) -> Bool {
        guard let (scheduler, _) = Scheduler.current else { return isDone }
        scheduler.step("wait() on \(name)", at: site)
        return scheduler.block(Wait(
            what: Bilingual("\(name) to finish", zh: "\(name) 完成"), site: site, deadline: deadline,
            until: { [unowned self] in isDone }))
    }
}
