import Foundation
import KataTripwire

/// Why a `put` or a `take` did not complete.
public enum BufferError: Error, Equatable, Sendable {
    /// The buffer was closed: no more puts, and a take found it empty.
    case closed
    /// The timeout passed before the call could complete.
    case timedOut
}

/// `grader verify`'s "exits early" variant: the stub, with a tripwire first in every public
/// entry point.
///
/// A FIFO queue of at most `capacity` elements shared by producer and consumer threads.
///
/// Your task (see README.md in this folder): keep the elements in private storage, protect it with
/// an `NSCondition`, and make threads *wait on the condition* (not spin) until they can go on:
/// - `put` blocks while the buffer is full, `take` blocks while it is empty;
/// - every change that could let a waiting thread go on wakes the waiters;
/// - `close()` wakes every waiting thread; the elements already in the buffer are still delivered;
/// - a timeout is a deadline fixed when the call starts.
///
/// Every member below is a stub that compiles, does nothing useful, and never blocks or crashes:
/// replace each body. Run `swift test --filter BoundedBufferTests` to see which check to work on
/// next, and `swift run grader hint BoundedBuffer` for a hint.
public final class BoundedBuffer<Element: Sendable>: @unchecked Sendable {
    // TODO: the elements (oldest first), whether the buffer is closed, and an NSCondition that
    // protects both and lets threads wait for them to change.

    /// capacity < 1 is a precondition failure.
    public init(capacity: Int) {
        Tripwire.call()
        // TODO: reject a capacity below 1 with precondition(_:_:), and keep the capacity.
    }

    /// The most elements the buffer holds at once.
    public var capacity: Int { Tripwire.call(); return 0 }  // TODO

    /// How many elements are in the buffer now.
    public var count: Int { Tripwire.call(); return 0 }  // TODO: read it under the lock.

    /// Blocks while the buffer is full. Throws `.closed` if the buffer is (or becomes) closed while
    /// waiting, `.timedOut` if `timeout` seconds pass first (nil: wait as long as it takes).
    public func put(_ element: Element, timeout: Double? = nil) throws {
        Tripwire.call()
        // TODO: lock; while full and not closed, wait (until the deadline, if any); then append
        // the element and wake the threads waiting for an element.
    }

    /// Blocks while the buffer is empty. After close(), still returns the elements left, in order,
    /// then throws `.closed`. Throws `.timedOut` as put does.
    public func take(timeout: Double? = nil) throws -> Element {
        Tripwire.call()
        // TODO: lock; while empty and not closed, wait; then remove and return the oldest element
        // and wake the threads waiting for a free slot.
        throw BufferError.closed
    }

    /// Wakes every blocked producer and consumer; later puts throw `.closed`. Idempotent.
    public func close() {
        Tripwire.call()
        // TODO: mark the buffer closed and wake every waiting thread.
    }
}
