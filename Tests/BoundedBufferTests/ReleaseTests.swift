import BoundedBuffer
import Foundation
import KataTestSupport
import Testing

/// The end of a buffer's life: let go while it still holds elements. Isolated, because the classic
/// wrong version traps there: a `DispatchSemaphore(value: capacity)` for the free slots is
/// released below the value it was created with, which libdispatch stops the process for.
@Suite("BoundedBuffer released", .exitIsAFailure)
struct ReleaseTests {
    static let place = "buffers released while they hold elements"

    @Test("A buffer released while it holds elements (full, partly taken, closed), on another thread, frees them and does not crash")
    func releasedWhileHoldingElements() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: ReleaseTests.place)
            ReleaseTests.releaseScript()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: ReleaseTests.place,
            crashHint: "This check only fills, takes from, closes and lets go of buffers: a crash here usually comes as the last reference to a buffer that still holds elements goes. A DispatchSemaphore released while its count is below the value it was created with makes libdispatch stop the process: create it with value 0 and signal it capacity times, or keep the count under your own lock.")
    }

    /// Each way a buffer can still hold elements when nobody needs it any more.
    struct Case: Sendable {
        var name: String
        var capacity: Int
        var puts: Int
        var takes: Int
        var closes: Bool
        var left: Int { puts - takes }
    }

    static let cases = [
        Case(name: "a full buffer of capacity 3", capacity: 3, puts: 3, takes: 0, closes: false),
        Case(name: "a buffer of capacity 3 that got 3 elements and gave 1 back", capacity: 3, puts: 3, takes: 1, closes: false),
        Case(name: "a closed buffer of capacity 2 still holding 1 element", capacity: 2, puts: 1, takes: 0, closes: true),
    ]

    static func releaseScript() {
        Script.run(in: place, seconds: Deadline.promptSeconds * Double(cases.count)) { script in
            for item in cases {
                guard release(item, script: script) else { return }
            }
        }
    }

    /// Fills, takes and closes as `item` says, then drops the last reference on another thread.
    /// Returns false when the script should stop.
    static func release(_ item: Case, script: Script) -> Bool {
        let freed = Locked(0)
        let holder = Holder()
        var taken: [Token] = []
        do {
            let buffer = BoundedBuffer<Token>(capacity: item.capacity)
            for index in 0..<item.puts {
                script.step("put #\(index + 1) into \(item.name)", ifStuck: "put must block only while the buffer is full.")
                guard case .returned = buffer.putOutcome(Token(freed: freed), timeout: 1) else {
                    return script.expect(false, "put #\(index + 1) into \(item.name) did not store the element: put must append it and return.")
                }
            }
            for _ in 0..<item.takes {
                script.step("take from \(item.name)", ifStuck: "take must block only while the buffer is empty.")
                guard let token = try? buffer.take(timeout: 1) else {
                    return script.expect(false, "take from \(item.name) gave no element: take must remove and return the oldest one.")
                }
                taken.append(token)
            }
            if item.closes {
                script.step("close() on \(item.name)", ifStuck: "close must not wait for anything.")
                buffer.close()
            }
            guard script.expect(buffer.count == item.left && freed.current == 0,
                                "\(item.name): count is \(buffer.count), and \(freed.current) element(s) were already freed; the buffer should hold \(item.left) element(s) until it is released.")
            else { return false }
            holder.buffer = buffer
        }
        // The last reference goes on another thread, as it does when the object that owned the
        // buffer is freed wherever its last user let it go.
        script.step("the last reference to \(item.name) let go on another thread", ifStuck: "Releasing a buffer must not wait for anything: deinit runs on the thread that lets the last reference go.")
        let released = ThreadGang.spawn { holder.buffer = nil }
        guard released.wait(timeout: .now() + Deadline.promptSeconds) == .success else {
            return script.expect(false, "Letting the last reference to \(item.name) go did not return within \(Int(Deadline.promptSeconds)) s: deinit must not wait for anything.")
        }
        let count = freed.current
        withExtendedLifetime(taken) {}
        return script.expect(count == item.left,
                             "After the last reference to \(item.name) was let go, \(count) of the \(item.left) element(s) inside were freed: the buffer must let its elements go with it (something still holds them: a retain cycle, or a closure that keeps the buffer alive).")
    }

    /// An element that counts its own end.
    final class Token: Sendable, Equatable {
        let freed: Locked<Int>

        init(freed: Locked<Int>) {
            self.freed = freed
        }

        deinit { freed.withLock { $0 += 1 } }

        static func == (a: Token, b: Token) -> Bool { a === b }
    }

    /// Holds the buffer until the release thread takes it away.
    final class Holder: @unchecked Sendable {
        var buffer: BoundedBuffer<Token>?
    }
}
