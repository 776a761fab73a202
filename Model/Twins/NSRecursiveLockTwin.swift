#if KATA_MODEL
import Foundation
import KataModel

/// Model twin of Foundation's `NSRecursiveLock`: as the `NSLock` twin, except that the thread
/// holding it may take it again (and must unlock as often).
final class NSRecursiveLock: @unchecked Sendable {
    private let model = ModelLock(kind: "NSRecursiveLock", recursive: true)
    var name: String?

    init() {}

    func lock(file: StaticString = #fileID, line: UInt = #line) {
        model.lock(at: Site(file, line))
    }

    func unlock(file: StaticString = #fileID, line: UInt = #line) {
        model.unlock(at: Site(file, line))
    }

    func `try`(file: StaticString = #fileID, line: UInt = #line) -> Bool {
        model.tryLock(at: Site(file, line))
    }

    func lock(before limit: Date, file: StaticString = #fileID, line: UInt = #line) -> Bool {
        model.lock(at: Site(file, line), text: "lock(before:)", deadline: ModelTime.deadline(limit))
    }

    func withLock<R>(file: StaticString = #fileID, line: UInt = #line, _ body: () throws -> R) rethrows -> R {
        model.lock(at: Site(file, line))
        defer { model.unlock(at: Site(file, line)) }
        return try body()
    }
}
#endif
