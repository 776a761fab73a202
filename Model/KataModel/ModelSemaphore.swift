/// The state machine behind the `DispatchSemaphore` twin.
public final class ModelSemaphore: @unchecked Sendable {
    public let name: String
    public private(set) var value: Int
    private var waiting = 0

    public init(value: Int) {
        name = Scheduler.current?.scheduler.nextName("DispatchSemaphore") ?? "DispatchSemaphore"
        self.value = value
    }

    /// False when the virtual deadline passed first.
    public func wait(at site: Site, deadline: Double? = nil) -> Bool {
        guard let (scheduler, _) = Scheduler.current else {
            precondition(value > 0, "A DispatchSemaphore twin cannot wait outside a model run")
            value -= 1
            return true
        }
        scheduler.step("wait() on \(name) (value \(value))", at: site)
        waiting += 1
        let got = scheduler.block(Wait(
            what: Bilingual("a signal on \(name)", zh: "\(name) 的 signal"), site: site, deadline: deadline,
            until: { [unowned self] in value > 0 }))
        waiting -= 1
        if got { value -= 1 }
        return got
    }

    /// Returns non-zero when a thread was waiting, as libdispatch's signal does.
    @discardableResult
    public func signal(at site: Site) -> Int {
        value += 1
        guard let (scheduler, _) = Scheduler.current else { return 0 }
        let woke = waiting > 0 ? 1 : 0
        scheduler.after("signal() on \(name) (value \(value))", at: site)
        return woke
    }
}
