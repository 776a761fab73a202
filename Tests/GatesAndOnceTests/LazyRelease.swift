import Dispatch
import Foundation
import GatesAndOnce
import KataTestSupport
import Testing

/// A box let go: what it held goes with it. Part of `computesOnFirstReadOnce`.
extension LazyTests {
    /// What one box held, seen through weak references: the box, what its initializer captured,
    /// and the value it returned (nil while it has not returned one).
    struct Held: Sendable {
        let box = Weak<Lazy<Token>>()
        let captured = Weak<Token>()
        let value = Weak<Token>()
    }

    /// After `oneThread` (whose reads returned): two boxes, each with an initializer that
    /// captures an object. One is let go before its first read: it must be freed, and its
    /// initializer (with what it captured) with it, never called. The other is read twice and then
    /// let go, with the value it returned: the box, its initializer's capture and its value must
    /// all be freed. The check holds nothing else; a right box frees them at once, and the wait is
    /// only a bound. Classic leaks: a closure kept in the box that captures the box (a cycle:
    /// nothing is freed), and values kept outside the box, in a global table (the value outlives
    /// its box).
    static func released() {
        let calls = Locked(0)
        let unread = Held()
        do {
            let captured = Token(1)
            unread.captured.value = captured
            let box = Lazy<Token> {
                calls.withLock { $0 += 1 }
                return Token(captured.serial + 1)
            }
            unread.box.value = box
        }  // the box goes here, unread
        guard freed(unread, what: "A box let go before its first read") else { return }
        #expect(calls.current == 0, "A box let go before its first read called its initializer \(calls.current) times: nobody asked for the value, so the initializer is never called.")

        let read = Held()
        let gotValues = Locked(false)
        do {
            let captured = Token(10)
            read.captured.value = captured
            let box = Lazy<Token> { Token(captured.serial + 1) }
            read.box.value = box
            // On the check's thread: `oneThread` has shown that reads return.
            if let first = try? box.value, let second = try? box.value {
                read.value.value = first
                withExtendedLifetime(second) { gotValues.withLock { $0 = true } }
            }
        }  // the box and the check's references to its value go here
        guard gotValues.current else {
            Issue.record("Reading value on a box whose initializer does not throw threw an error: value returns what the initializer returned.")
            return
        }
        _ = freed(read, what: "A box read twice and then let go")
    }

    /// True when the box, its initializer's capture and its value (if it returned one) are all
    /// freed within a prompt bound; otherwise records which of them is still alive.
    static func freed(_ held: Held, what: String) -> Bool {
        let all = { held.box.value == nil && held.captured.value == nil && held.value.value == nil }
        if Deadline.happens(within: Deadline.promptSeconds, all) { return true }
        let later = "\(Patience.seconds(Deadline.promptSeconds)) s after the check let go of it"
        if held.box.value != nil {
            Issue.record("\(what) was still alive \(later): something still holds the box (a closure stored in the box that captures self, say: a cycle that keeps the box for ever). Let nothing the box keeps capture the box itself.")
        } else if held.value.value != nil {
            Issue.record("\(what) was freed, but the value it returned was still alive \(Patience.seconds(Deadline.promptSeconds)) s after the check let go of the box and of the value: something outside the box keeps the value, such as a global table of values, which keeps every box's value for ever. Keep the value in the box itself.")
        } else {
            Issue.record("\(what) was freed, but what its initializer captured was still alive \(later): something other than the box keeps the initializer (or what it captured). Keep the initializer in the box only.")
        }
        return false
    }
}
