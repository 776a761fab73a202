import BoundedBuffer
import Foundation
import KataTestSupport
import Testing

/// The contract on one thread: order, count, timeouts, close. Each check runs isolated, because a
/// wrong `take` typically crashes on an empty array, and its calls run on a watched thread,
/// because a wrong `put` or `take` may block for ever.
@Suite("BoundedBuffer on one thread", .exitIsAFailure)
struct SingleThreadTests {
    @Test("Elements come out in the order they went in; count and capacity are right")
    func fifoOrderCountAndCapacity() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "put and take on one thread")
            SingleThreadTests.fifoScript()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "put and take on one thread",
            crashHint: "A crash here usually means take removed from an empty array: take may remove only after checking, under the lock, that an element is there.")
    }

    static func fifoScript() {
        Script.run(in: "put and take on one thread") { script in
            let buffer = BoundedBuffer<Int>(capacity: 3)
            guard script.expect(buffer.capacity == 3, "capacity should be 3 for BoundedBuffer(capacity: 3), got \(buffer.capacity): keep it in init.") else { return }
            script.expect(buffer.count == 0, "A new buffer should be empty: count is \(buffer.count).")
            for element in [1, 2, 3] {
                script.step("put(\(element), timeout: 1) on a buffer of capacity 3 holding \(element - 1)", ifStuck: "put must block only while the buffer is full (count == capacity).")
                let outcome = buffer.putOutcome(element, timeout: 1)
                guard script.expect(outcome == .returned(Stored()), "put(\(element), timeout: 1) on a buffer of capacity 3 holding \(element - 1) element(s) \(outcome); it should store the element and return.") else { return }
            }
            guard script.expect(buffer.count == 3, "count should be 3 after three puts, got \(buffer.count): append each element to private storage.") else { return }
            var taken: [Outcome<Int>] = []
            for index in 0..<3 {
                script.step("take(timeout: 1) on a buffer holding \(3 - index)", ifStuck: "take must block only while the buffer is empty.")
                taken.append(buffer.takeOutcome(timeout: 1))
            }
            guard script.expect(taken == [.returned(1), .returned(2), .returned(3)], "After put 1, 2, 3, three takes gave \(taken.map(\.description)): a bounded buffer is first in, first out; take removes the oldest element.") else { return }
            script.expect(buffer.count == 0, "count should be 0 after every element was taken, got \(buffer.count).")

            // Interleaved, so that an implementation that only works from a full or empty state
            // is seen too: put 4, put 5, take → 4, put 6, put 7, take × 3 → 5, 6, 7.
            script.step("an interleaved sequence of puts and takes with timeouts", ifStuck: "put must block only while full, take only while empty.")
            var seen: [Outcome<Int>] = []
            _ = buffer.putOutcome(4, timeout: 1)
            _ = buffer.putOutcome(5, timeout: 1)
            seen.append(buffer.takeOutcome(timeout: 1))
            _ = buffer.putOutcome(6, timeout: 1)
            _ = buffer.putOutcome(7, timeout: 1)
            let countWithThree = buffer.count
            for _ in 0..<3 { seen.append(buffer.takeOutcome(timeout: 1)) }
            script.expect(seen == [.returned(4), .returned(5), .returned(6), .returned(7)], "put 4, put 5, take, put 6, put 7, take, take, take gave \(seen.map(\.description)); expected 4, 5, 6, 7 (first in, first out).")
            script.expect(countWithThree == 3, "count should be 3 with 5, 6, 7 in the buffer, got \(countWithThree).")
        }
    }

    static let timeout = 0.3

    @Test("put on a full and take on an empty buffer throw .timedOut after the timeout; the buffer stays usable")
    func timeoutsOnFullAndEmpty() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "put and take with timeouts")
            SingleThreadTests.timeoutScript()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "put and take with timeouts",
            crashHint: "A crash here usually means a timed-out take still removed from the empty array: after the wait, check the condition again.")
    }

    static func timeoutScript() {
        let stuckHint = "A timeout means wait(until: deadline) — NSCondition's wait() alone never gives up — and .timedOut once the deadline has passed."
        Script.run(in: "put and take with timeouts", seconds: Deadline.promptSeconds + timeout) { script in
            let buffer = BoundedBuffer<String>(capacity: 1)
            script.step("take(timeout: \(timeout)) on an empty buffer", ifStuck: stuckHint)
            var start = monotonicSeconds()
            let onEmpty = buffer.takeOutcome(timeout: timeout)
            var seconds = monotonicSeconds() - start
            guard script.expect(onEmpty == .threw(.timedOut), "take(timeout: \(timeout)) on an empty buffer \(onEmpty); it should wait \(timeout) s for an element, then throw BufferError.timedOut.") else { return }
            guard script.expect(seconds >= timeout - 0.05, "take(timeout: \(timeout)) threw .timedOut after \(String(format: "%.3f", seconds)) s, before the timeout: wait until the deadline (now + timeout), not less.") else { return }
            script.expect(seconds < timeout + 2, "take(timeout: \(timeout)) threw .timedOut only after \(String(format: "%.1f", seconds)) s: the deadline is now + timeout, fixed when the call starts.")

            script.step("put(\"a\", timeout: 1) on an empty buffer of capacity 1", ifStuck: "put must block only while the buffer is full.")
            guard script.expect(buffer.putOutcome("a", timeout: 1) == .returned(Stored()), "put(\"a\", timeout: 1) on an empty buffer of capacity 1 should store the element and return.") else { return }

            script.step("put(\"b\", timeout: \(timeout)) on a full buffer", ifStuck: stuckHint)
            start = monotonicSeconds()
            let onFull = buffer.putOutcome("b", timeout: timeout)
            seconds = monotonicSeconds() - start
            guard script.expect(onFull == .threw(.timedOut), "put(\"b\", timeout: \(timeout)) on a full buffer of capacity 1 \(onFull); it should wait \(timeout) s for a free slot, then throw BufferError.timedOut (and store nothing).") else { return }
            guard script.expect(seconds >= timeout - 0.05, "put(timeout: \(timeout)) threw .timedOut after \(String(format: "%.3f", seconds)) s, before the timeout.") else { return }
            script.expect(seconds < timeout + 2, "put(timeout: \(timeout)) threw .timedOut only after \(String(format: "%.1f", seconds)) s: the deadline is now + timeout.")

            // The timed-out calls must leave nothing behind: the buffer still holds exactly "a".
            script.expect(buffer.count == 1, "After a put timed out on a full buffer of capacity 1, count should still be 1, got \(buffer.count): a timed-out put stores nothing.")
            script.step("take(timeout: 1) on a buffer holding \"a\"", ifStuck: "take must block only while the buffer is empty.")
            let first = buffer.takeOutcome(timeout: 1)
            script.expect(first == .returned("a"), "After a timed-out put of \"b\", take should return \"a\", got: \(first). A timed-out call must leave the buffer as it was.")
            script.step("put(\"c\", timeout: 1) then take(timeout: 1) after the timeouts", ifStuck: "A timed-out call must leave the buffer usable (and unlocked).")
            let put = buffer.putOutcome("c", timeout: 1)
            let second = buffer.takeOutcome(timeout: 1)
            script.expect(put == .returned(Stored()) && second == .returned("c"), "After the timeouts, put(\"c\") \(put) and take \(second); the buffer should be usable as before: a timed-out waiter must give the lock back.")
        }
    }

    @Test("close: puts throw .closed, takes deliver what is left in order, then throw .closed")
    func closeSemantics() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "close on one thread")
            SingleThreadTests.closeScript()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "close on one thread",
            crashHint: "A crash here usually means take removed from an empty array once the buffer was closed: closed and empty throws .closed.")
    }

    static func closeScript() {
        let stuckHint = "A closed buffer never blocks: the wait loop must also end when the buffer is closed."
        Script.run(in: "close on one thread") { script in
            let buffer = BoundedBuffer<Int>(capacity: 3)
            script.step("put(1, timeout: 1) and put(2, timeout: 1) on an empty buffer of capacity 3")
            _ = buffer.putOutcome(1, timeout: 1)
            _ = buffer.putOutcome(2, timeout: 1)
            guard script.expect(buffer.count == 2, "count should be 2 after two puts, got \(buffer.count): store the elements first.") else { return }
            script.step("close(), twice")
            buffer.close()
            buffer.close()
            script.step("put(3, timeout: 1) on a closed buffer", ifStuck: stuckHint)
            let put = buffer.putOutcome(3, timeout: 1)
            script.expect(put == .threw(.closed), "put(3) on a closed buffer \(put); it should throw BufferError.closed at once, even with room left.")
            script.expect(buffer.count == 2, "count should stay 2 after close() (the elements are still there), got \(buffer.count).")
            script.step("take(timeout: 1) on a closed buffer holding 1, 2", ifStuck: stuckHint)
            let left = [buffer.takeOutcome(timeout: 1), buffer.takeOutcome(timeout: 1)]
            guard script.expect(left == [.returned(1), .returned(2)], "After close(), two takes gave \(left.map(\.description)); the elements already in the buffer are still delivered, in order: 1, 2.") else { return }
            script.step("take(timeout: 1) on a closed, empty buffer", ifStuck: stuckHint)
            var start = monotonicSeconds()
            let end = buffer.takeOutcome(timeout: 1)
            var seconds = monotonicSeconds() - start
            script.expect(end == .threw(.closed) && seconds < 0.9, "take(timeout: 1) on a closed, empty buffer \(end) after \(String(format: "%.2f", seconds)) s; it should throw BufferError.closed at once: nothing will ever come.")
            script.step("take() without timeout on a closed, empty buffer", ifStuck: stuckHint)
            let endless = buffer.takeOutcome()
            script.expect(endless == .threw(.closed), "take() on a closed, empty buffer \(endless); it should throw BufferError.closed.")

            let full = BoundedBuffer<Int>(capacity: 1)
            _ = full.putOutcome(1, timeout: 1)
            full.close()
            script.step("put(2, timeout: 1) on a closed, full buffer", ifStuck: stuckHint)
            start = monotonicSeconds()
            let onFull = full.putOutcome(2, timeout: 1)
            seconds = monotonicSeconds() - start
            script.expect(onFull == .threw(.closed) && seconds < 0.9, "put(2, timeout: 1) on a closed, full buffer \(onFull) after \(String(format: "%.2f", seconds)) s; it should throw BufferError.closed at once, not wait for room.")
        }
    }

    @Test("BoundedBuffer(capacity: 0) is a precondition failure")
    func rejectsCapacityBelowOne() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            _ = BoundedBuffer<Int>(capacity: 0)
            IsolatedCheck.finish()
        }
        switch ending?.exitStatus {
        case nil:
            break  // exited with status 0: the expectation has said so
        case .exitCode(IsolatedCheck.finishedCode):
            Issue.record("BoundedBuffer(capacity: 0) returned a buffer. A buffer with no room can never accept an element: every put would block for ever. Reject it in init with precondition(capacity >= 1, …).")
        case .exitCode(let code):
            Issue.record("BoundedBuffer(capacity: 0) exited with status \(code): stop with precondition(capacity >= 1, …), do not call exit().")
        case .signal:
            break  // a precondition failure traps: that is what is asked
        @unknown default:
            Issue.record("BoundedBuffer(capacity: 0) ended in an unexpected way: \(String(describing: ending?.exitStatus)).")
        }
    }
}
