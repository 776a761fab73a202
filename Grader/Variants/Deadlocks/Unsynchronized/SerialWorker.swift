import Dispatch
import Foundation

/// The reference solution with all synchronization removed: no serial queue. `sync` runs its
/// body at once on the caller's thread, `async` on a global queue, and `isCurrent` is a mark
/// that the worker's bodies leave on their thread while they run.
public final class SerialWorker: @unchecked Sendable {
    private let mark: String

    public init(label: String) {
        mark = "SerialWorker \(label) \(UUID().uuidString)"
    }

    private func running<T>(_ body: () throws -> T) rethrows -> T {
        let dictionary = Thread.current.threadDictionary
        let before = dictionary[mark]
        dictionary[mark] = true
        defer { dictionary[mark] = before }
        return try body()
    }

    public func sync<T>(_ body: () throws -> T) rethrows -> T {
        try running(body)
    }

    public func async(_ body: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async { self.running(body) }
    }

    public var isCurrent: Bool {
        Thread.current.threadDictionary[mark] as? Bool == true
    }
}
