#if KATA_MODEL
import Foundation
import KataModel

/// Model twin of Foundation's `NSCondition`: a lock and a place to wait. A waiter needs a signal
/// that comes after its `wait()` began (a signal with nobody waiting is lost, as in the real
/// one), and the lock back, before `wait()` returns. No spurious wake-ups.
final class NSCondition: @unchecked Sendable {
    private let model = ModelCondition()
    var name: String?

    init() {}

    func lock(file: StaticString = #fileID, line: UInt = #line) {
        model.lock.lock(at: Site(file, line))
    }

    func unlock(file: StaticString = #fileID, line: UInt = #line) {
        model.lock.unlock(at: Site(file, line))
    }

    func `try`(file: StaticString = #fileID, line: UInt = #line) -> Bool {
        model.lock.tryLock(at: Site(file, line))
    }

    func lock(before limit: Date, file: StaticString = #fileID, line: UInt = #line) -> Bool {
        model.lock.lock(at: Site(file, line), text: "lock(before:)", deadline: ModelTime.deadline(limit))
    }

    func wait(file: StaticString = #fileID, line: UInt = #line) {
        _ = model.wait(at: Site(file, line))
    }

    func wait(until limit: Date, file: StaticString = #fileID, line: UInt = #line) -> Bool {
        model.wait(at: Site(file, line), text: "wait(until:)", deadline: ModelTime.deadline(limit))
    }

    func signal(file: StaticString = #fileID, line: UInt = #line) {
        model.signal(at: Site(file, line))
    }

    func broadcast(file: StaticString = #fileID, line: UInt = #line) {
        model.broadcast(at: Site(file, line))
    }

    func withLock<R>(file: StaticString = #fileID, line: UInt = #line, _ body: () throws -> R) rethrows -> R {
        model.lock.lock(at: Site(file, line))
        defer { model.lock.unlock(at: Site(file, line)) }
        return try body()
    }
}
#endif
