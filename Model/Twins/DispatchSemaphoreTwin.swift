#if KATA_MODEL
import Dispatch
import KataModel

/// Model twin of `DispatchSemaphore`. Timeouts are virtual: they pass only when every thread
/// of the schedule is blocked.
public final class DispatchSemaphore: @unchecked Sendable {
    private let model: ModelSemaphore

    public init(value: Int) {
        model = ModelSemaphore(value: value)
    }

    public func wait(file: StaticString = #fileID, line: UInt = #line) {
        _ = model.wait(at: Site(file, line))
    }

    public func wait(timeout: DispatchTime, file: StaticString = #fileID, line: UInt = #line) -> DispatchTimeoutResult {
        model.wait(at: Site(file, line), deadline: timeout.virtualSeconds) ? .success : .timedOut
    }

    @discardableResult
    public func signal(file: StaticString = #fileID, line: UInt = #line) -> Int {
        model.signal(at: Site(file, line))
    }
}
#endif
