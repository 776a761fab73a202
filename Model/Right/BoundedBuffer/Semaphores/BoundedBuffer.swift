import Dispatch
import Foundation

/// Why a `put` or a `take` did not complete.
public enum BufferError: Error, Equatable, Sendable {
    case closed
    case timedOut
}

/// Model-mode right implementation in another style: the textbook pair of counting semaphores
/// (free slots, filled slots) with a lock around the storage, instead of one `NSCondition`.
/// `close()` signals each semaphore once more; every waiter it wakes finds the buffer closed (or,
/// for a take, empty) and passes the signal on, so that all of them wake, one after another.
/// The free slots' semaphore starts at 0 and is signalled `capacity` times: libdispatch traps
/// when a semaphore is released below the value it was created with, so one created with
/// `value: capacity` crashes when a buffer that still holds an element is released.
public final class BoundedBuffer<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private let freeSlots: DispatchSemaphore
    private let filledSlots = DispatchSemaphore(value: 0)
    private var items: [Element] = []
    private var isClosed = false

    public let capacity: Int

    public init(capacity: Int) {
        precondition(capacity >= 1, "A BoundedBuffer needs a capacity of at least 1 (got \(capacity)).")
        self.capacity = capacity
        freeSlots = DispatchSemaphore(value: 0)
        for _ in 0..<capacity { freeSlots.signal() }
    }

    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return items.count
    }

    public func put(_ element: Element, timeout: Double? = nil) throws {
        try wait(for: freeSlots, timeout: timeout)
        lock.lock()
        if isClosed {
            lock.unlock()
            freeSlots.signal()  // pass the close on to the next waiting producer
            throw BufferError.closed
        }
        items.append(element)
        lock.unlock()
        filledSlots.signal()
    }

    public func take(timeout: Double? = nil) throws -> Element {
        try wait(for: filledSlots, timeout: timeout)
        lock.lock()
        guard !items.isEmpty else {
            // Only close() signals without an element: pass it on to the next waiting consumer.
            lock.unlock()
            filledSlots.signal()
            throw BufferError.closed
        }
        let element = items.removeFirst()
        lock.unlock()
        freeSlots.signal()
        return element
    }

    public func close() {
        lock.lock()
        let first = !isClosed
        isClosed = true
        lock.unlock()
        guard first else { return }
        freeSlots.signal()
        filledSlots.signal()
    }

    private func wait(for semaphore: DispatchSemaphore, timeout: Double?) throws {
        guard let timeout else {
            semaphore.wait()
            return
        }
        if semaphore.wait(timeout: .now() + max(0, timeout)) == .timedOut { throw BufferError.timedOut }
    }
}
