import Dispatch

/// Grader variant "DeinitWaitsForQueue": the reference solution whose `deinit` waits for the
/// bodies still queued (`queue.sync {}`), to "let them finish before the worker goes". Nothing
/// needs that (the queue keeps itself alive until they have run), and when the last reference goes
/// inside one of the worker's own bodies, the deinit runs on the worker's queue: a `sync` onto the
/// queue it runs on, which libdispatch traps.
public final class SerialWorker: @unchecked Sendable {
    private final class Mark: Sendable {}

    private static let key = DispatchSpecificKey<Mark>()

    private let queue: DispatchQueue
    private let mark = Mark()

    public init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.key, value: mark)
    }

    deinit {
        queue.sync {}  // the bug: waits for the queue, which may be the one this deinit runs on
    }

    public func sync<T>(_ body: () throws -> T) rethrows -> T {
        if isCurrent { return try body() }
        return try queue.sync(execute: body)
    }

    public func async(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }

    public var isCurrent: Bool {
        DispatchQueue.getSpecific(key: Self.key) === mark
    }
}
