#if KATA_MODEL
import Dispatch
import KataModel

/// Model twin of `DispatchSemaphore`. Timeouts are virtual: they pass only when every thread
/// of the schedule is blocked.
final class DispatchSemaphore: @unchecked Sendable {
    private let model: ModelSemaphore

    init(value: Int) {
        model = ModelSemaphore(value: value)
    }

    func wait(file: StaticString = #fileID, line: UInt = #line) {
        _ = model.wait(at: Site(file, line))
    }

    func wait(timeout: DispatchTime, file: StaticString = #fileID, line: UInt = #line) -> DispatchTimeoutResult {
        model.wait(at: Site(file, line), deadline: ModelTime.deadline(timeout)) ? .success : .timedOut
    }

    @discardableResult
    func signal(file: StaticString = #fileID, line: UInt = #line) -> Int {
        model.signal(at: Site(file, line))
    }
}
#endif
