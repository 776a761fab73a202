#if KATA_MODEL
import Dispatch
import KataModel

/// Model twin of `DispatchWorkItem`: `cancel()` before it runs keeps its body from running (its
/// notifications still go), and does not stop a body already running.
public final class DispatchWorkItem: @unchecked Sendable {
    let model: ModelWorkItem

    public init(qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], block: @escaping () -> Void) {
        let closure = ModelClosure(block)
        model = ModelWorkItem { closure.run() }
    }

    public var isCancelled: Bool { model.isCancelled }

    public func perform(file: StaticString = #fileID, line: UInt = #line) {
        model.perform(at: Site(file, line))
    }

    public func cancel(file: StaticString = #fileID, line: UInt = #line) {
        model.cancel(at: Site(file, line))
    }

    public func wait(file: StaticString = #fileID, line: UInt = #line) {
        _ = model.wait(at: Site(file, line))
    }

    public func wait(timeout: DispatchTime, file: StaticString = #fileID, line: UInt = #line) -> DispatchTimeoutResult {
        model.wait(at: Site(file, line), deadline: timeout.virtualSeconds) ? .success : .timedOut
    }

    public func notify(
        qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], queue: DispatchQueue,
        file: StaticString = #fileID, line: UInt = #line, execute work: @escaping () -> Void
    ) {
        let closure = ModelClosure(work)
        model.notify(queue: queue.model, at: Site(file, line)) { closure.run() }
    }

    public func notify(queue: DispatchQueue, execute item: DispatchWorkItem, file: StaticString = #fileID, line: UInt = #line) {
        model.notify(queue: queue.model, at: Site(file, line)) { item.model.perform(at: Site(file, line)) }
    }
}
#endif
