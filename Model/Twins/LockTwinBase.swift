#if KATA_MODEL
import Foundation
import KataModel

/// What the `NSLock`, `NSRecursiveLock` and `NSCondition` twins share: the `NSLocking` calls
/// and `try`/`lock(before:)`, on a model lock. Each operation is a switch point of the model's
/// scheduler, recorded with the caller's file and line. (The name is the model's own, so that
/// it never meets a learner's.)
public class KataModelLockTwin: @unchecked Sendable {
    let modelLock: ModelLock
    public var name: String?

    public init(modelLock: ModelLock) {
        self.modelLock = modelLock
    }

    public func lock(file: StaticString = #fileID, line: UInt = #line) {
        modelLock.lock(at: Site(file, line))
    }

    public func unlock(file: StaticString = #fileID, line: UInt = #line) {
        modelLock.unlock(at: Site(file, line))
    }

    public func `try`(file: StaticString = #fileID, line: UInt = #line) -> Bool {
        modelLock.tryLock(at: Site(file, line))
    }

    public func lock(before limit: Date, file: StaticString = #fileID, line: UInt = #line) -> Bool {
        modelLock.lock(at: Site(file, line), text: "lock(before:)", deadline: ModelTime.deadline(limit))
    }

    public func withLock<R>(file: StaticString = #fileID, line: UInt = #line, _ body: () throws -> R) rethrows -> R {
        modelLock.lock(at: Site(file, line))
        defer { modelLock.unlock(at: Site(file, line)) }
        return try body()
    }
}
#endif
