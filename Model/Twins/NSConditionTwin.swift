#if KATA_MODEL
import Foundation
import KataModel

/// Model twin of Foundation's `NSCondition`: a lock and a place to wait. A waiter needs a signal
/// that comes after its `wait()` began (a signal with nobody waiting is lost, as in the real
/// one), and the lock back, before `wait()` returns. No spurious wake-ups.
public final class NSCondition: KataModelLockTwin, @unchecked Sendable {
    private let model: ModelCondition

    public init() {
        let model = ModelCondition()
        self.model = model
        super.init(modelLock: model.lock)
    }

    public func wait(file: StaticString = #fileID, line: UInt = #line) {
        _ = model.wait(at: Site(file, line))
    }

    public func wait(until limit: Date, file: StaticString = #fileID, line: UInt = #line) -> Bool {
        model.wait(at: Site(file, line), text: "wait(until:)", deadline: ModelTime.deadline(limit))
    }

    public func signal(file: StaticString = #fileID, line: UInt = #line) {
        model.signal(at: Site(file, line))
    }

    public func broadcast(file: StaticString = #fileID, line: UInt = #line) {
        model.broadcast(at: Site(file, line))
    }
}
#endif
