import Dispatch

/// Grader variant "KeyFreedWithWorker": a `DispatchSpecificKey` stored in each worker (the design
/// most answers reach first). Two live workers are told apart, but Dispatch tells keys apart by
/// their address alone, and a worker let go while bodies are still queued is freed with its key
/// while its queue still carries that address: a worker made next can get a key at the same
/// address, and then looks current inside the old worker's bodies (its `sync` runs inline there,
/// beside its own queue's blocks).
public final class SerialWorker: @unchecked Sendable {
    private let queue: DispatchQueue
    /// One key per worker, freed with it (the bug).
    private let key = DispatchSpecificKey<Bool>()

    public init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: true)
    }

    public func sync<T>(_ body: () throws -> T) rethrows -> T {
        if isCurrent { return try body() }
        return try queue.sync(execute: body)
    }

    public func async(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }

    public var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) == true
    }
}
