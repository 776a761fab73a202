#if KATA_MODEL
import Dispatch
import KataModel

/// Model twin of `DispatchGroup`.
public final class DispatchGroup: @unchecked Sendable {
    let model = ModelGroup()

    public init() {}

    public func enter(file: StaticString = #fileID, line: UInt = #line) {
        model.enter(at: Site(file, line))
    }

    public func leave(file: StaticString = #fileID, line: UInt = #line) {
        model.leave(at: Site(file, line))
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

    public func notify(queue: DispatchQueue, work: DispatchWorkItem, file: StaticString = #fileID, line: UInt = #line) {
        model.notify(queue: queue.model, at: Site(file, line)) { work.model.perform(at: Site(file, line)) }
    }
}
#endif
