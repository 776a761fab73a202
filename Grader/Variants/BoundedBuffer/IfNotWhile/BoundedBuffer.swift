import Foundation

/// Why a `put` or a `take` did not complete.
public enum BufferError: Error, Equatable, Sendable {
    /// The buffer was closed: no more puts, and a take found it empty.
    case closed
    /// The timeout passed before the call could complete.
    case timedOut
}

/// A FIFO queue of at most `capacity` elements shared by producer and consumer threads.
///
/// Grader variant "IfNotWhile": the reference solution with `if` instead of `while` around each
/// wait. A woken thread goes on without looking again: a consumer woken by a put whose element
/// another consumer took first goes on to take from an empty buffer (a trap: index out of range).
///
/// Reference solution: one `NSCondition` is both the lock that protects the state and the place
/// where threads wait for the state to change. Every wait sits in a `while` loop that re-checks its
/// condition after waking, every change of state is announced with `broadcast()`, and each call's
/// deadline is computed once, before its loop.
public final class BoundedBuffer<Element: Sendable>: @unchecked Sendable {
    /// Protects `items` and `isClosed`, and lets threads sleep until they change.
    private let condition = NSCondition()
    private var items: [Element] = []
    /// Index of the oldest element in `items`: taking moves it forward instead of shifting the
    /// array (`removeFirst()` is O(n)); the consumed prefix is dropped now and then.
    private var head = 0
    private var isClosed = false

    /// The most elements the buffer holds at once. Never changes.
    public let capacity: Int

    /// capacity < 1 is a precondition failure.
    public init(capacity: Int) {
        precondition(capacity >= 1, "A BoundedBuffer needs a capacity of at least 1 (got \(capacity)).")
        self.capacity = capacity
        items.reserveCapacity(capacity)
    }

    /// How many elements are in the buffer now.
    public var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return items.count - head
    }

    /// Blocks while the buffer is full. Throws `.closed` if the buffer is (or becomes) closed while
    /// waiting, `.timedOut` if `timeout` seconds pass first (nil: wait as long as it takes).
    public func put(_ element: Element, timeout: Double? = nil) throws {
        // The deadline is fixed here, once: every wake-up waits only for what is left of it.
        let deadline = timeout.map { Date(timeIntervalSinceNow: max(0, $0)) }
        condition.lock()
        defer { condition.unlock() }
        if !isClosed && items.count - head >= capacity {
            try waitOrThrow(until: deadline)
        }
        if isClosed { throw BufferError.closed }
        items.append(element)
        // Consumers wait on the same condition as producers, so wake everyone: a `signal()` could
        // wake another producer, which would go back to sleep, and the consumer would never hear.
        condition.broadcast()
    }

    /// Blocks while the buffer is empty. After close(), still returns the elements left, in order,
    /// then throws `.closed`. Throws `.timedOut` as put does.
    public func take(timeout: Double? = nil) throws -> Element {
        let deadline = timeout.map { Date(timeIntervalSinceNow: max(0, $0)) }
        condition.lock()
        defer { condition.unlock() }
        if !isClosed && items.count == head {
            try waitOrThrow(until: deadline)
        }
        // Closed but not empty: deliver what is left before reporting the end.
        guard items.count > head else { throw BufferError.closed }
        let element = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return element
    }

    /// Wakes every blocked producer and consumer; later puts throw `.closed`. Idempotent.
    public func close() {
        condition.lock()
        defer { condition.unlock() }
        isClosed = true
        // Every waiter must see the change: `signal()` would wake only one of them.
        condition.broadcast()
    }

    /// Waits once on the condition, with the lock held, or throws `.timedOut` if the deadline has
    /// already passed. The caller re-checks its own condition after every return, so an element
    /// that arrived just as the deadline passed is still delivered.
    private func waitOrThrow(until deadline: Date?) throws {
        guard let deadline else {
            condition.wait()
            return
        }
        if Date() >= deadline { throw BufferError.timedOut }
        _ = condition.wait(until: deadline)
    }
}
