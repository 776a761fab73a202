import Foundation

// `grader verify`'s "no synchronization" variant: the reference with the NSCondition removed.
// Nothing protects the storage and nothing is waited on: a blocked call polls the shared state
// every 200 µs without any lock. It behaves on one thread and with one waiter, and it corrupts
// the storage (or crashes) when producers and consumers really overlap.

public enum BufferError: Error, Equatable, Sendable {
    case closed
    case timedOut
}

public final class BoundedBuffer<Element: Sendable>: @unchecked Sendable {
    private var items: [Element] = []
    private var isClosed = false
    public let capacity: Int

    public init(capacity: Int) {
        precondition(capacity >= 1, "A BoundedBuffer needs a capacity of at least 1 (got \(capacity)).")
        self.capacity = capacity
    }

    public var count: Int { items.count }

    public func put(_ element: Element, timeout: Double? = nil) throws {
        let deadline = timeout.map { Date(timeIntervalSinceNow: max(0, $0)) }
        while !isClosed && items.count >= capacity {
            try pause(until: deadline)
        }
        if isClosed { throw BufferError.closed }
        items.append(element)
    }

    public func take(timeout: Double? = nil) throws -> Element {
        let deadline = timeout.map { Date(timeIntervalSinceNow: max(0, $0)) }
        while !isClosed && items.isEmpty {
            try pause(until: deadline)
        }
        guard !items.isEmpty else { throw BufferError.closed }
        return items.removeFirst()
    }

    public func close() {
        isClosed = true
    }

    private func pause(until deadline: Date?) throws {
        if let deadline, Date() >= deadline { throw BufferError.timedOut }
        usleep(200)
    }
}
