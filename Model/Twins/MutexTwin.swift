#if KATA_MODEL
import KataModel

/// Model twin of Synchronization's `Mutex`, as a class (the real one is a non-copyable struct;
/// code that stores it in a `let` and calls `withLock` reads the same). Copyable values only.
public final class Mutex<Value>: @unchecked Sendable {
    private let model = ModelLock(kind: "Mutex")
    private var value: Value

    public init(_ initialValue: consuming sending Value) {
        value = initialValue
    }

    public func withLock<R>(file: StaticString = #fileID, line: UInt = #line, _ body: (inout Value) throws -> R) rethrows -> R {
        model.lock(at: Site(file, line), text: "withLock {")
        defer { model.unlock(at: Site(file, line), text: "} end of withLock") }
        return try body(&value)
    }

    public func withLockIfAvailable<R>(file: StaticString = #fileID, line: UInt = #line, _ body: (inout Value) throws -> R) rethrows -> R? {
        guard model.tryLock(at: Site(file, line)) else { return nil }
        defer { model.unlock(at: Site(file, line), text: "} end of withLockIfAvailable") }
        return try body(&value)
    }
}
#endif
