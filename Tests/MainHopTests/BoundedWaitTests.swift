import Dispatch
import Foundation
import KataTestSupport
import MainHop
import Testing

/// A callback API made synchronous with a timeout. Isolated: a callback that comes after its call
/// gave up must not crash anything.
@Suite("Bounded wait", .exitIsAFailure)
struct BoundedWaitTests {
    static let crashHint = "A trap here usually means a late callback touched what its call had already given up (a continuation resumed twice, a DispatchGroup left more often than entered)."

    /// The callbacks a fake client was given, for the check to call (or not) when it wants.
    final class FakeClient: Sendable {
        let pending = Locked([@Sendable (Int) -> Void]())
        let requests = Locked(0)

        /// A request that keeps its callback and never calls it by itself.
        var request: @Sendable (@escaping @Sendable (Int) -> Void) -> Void {
            { [self] callback in
                requests.withLock { $0 += 1 }
                pending.withLock { $0.append(callback) }
            }
        }

        func answer(_ index: Int, with value: Int) {
            let callback = pending.withLock { $0.indices.contains(index) ? $0[index] : nil }
            callback?(value)
        }
    }

    @Test("call(timeout:) returns the callback's value, at once or later, and .timedOut after the timeout when it never comes")
    func boundedWaitReturnsOrTimesOut() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "call(timeout:)")
            BoundedWaitTests.returnsOrTimesOut()
            IsolatedCheck.finish()
        }
        explain(ending, in: "call(timeout:)", crashHint: Self.crashHint)
    }

    static func returnsOrTimesOut() {
        let atOnce = SyncClient<Int> { callback in callback(1) }
        let first = atOnce.call(timeout: .seconds(2))
        #expect(first == .value(1), "With a client that calls back before its request returns, call(timeout:) returned \(first), expected .value(1). Wait on a semaphore the callback signals; a signal before the wait is kept.")
        let later = SyncClient<Int> { callback in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { callback(2) }
        }
        let second = later.call(timeout: .seconds(3))
        #expect(second == .value(2), "With a client that calls back 50 ms later on another thread, call(timeout:) returned \(second), expected .value(2).")
        let silent = FakeClient()
        let never = SyncClient<Int>(silent.request)
        let start = DispatchTime.now()
        let third = never.call(timeout: .milliseconds(200))
        let waited = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        #expect(silent.requests.current == 1, "call(timeout:) started \(silent.requests.current) requests, expected 1.")
        #expect(third == .timedOut && waited >= 0.19, "With a client that never calls back, call(timeout: 200 ms) returned \(third) after \(Int(waited * 1000)) ms, expected .timedOut after 200 ms. Wait with semaphore.wait(timeout:) and return .timedOut when it says .timedOut.")
        #expect(waited < 2, "call(timeout: 200 ms) returned only after \(Int(waited * 1000)) ms.")
    }

    @Test("A callback that arrives after its call timed out neither crashes, nor releases the next call, nor keeps the client alive")
    func lateCallbackReleasesNothing() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "a late callback")
            BoundedWaitTests.lateCallback()
            IsolatedCheck.finish()
        }
        explain(ending, in: "a callback that came after its call timed out", crashHint: Self.crashHint)
    }

    static func lateCallback() {
        let fake = FakeClient()
        var client: SyncClient<Int>? = SyncClient<Int>(fake.request)
        weak var weakClient: SyncClient<Int>?
        weakClient = client
        guard let first = client?.call(timeout: .milliseconds(150)) else { return }
        guard first == .timedOut else {
            Issue.record("With a client that had not called back, call(timeout: 150 ms) returned \(first), expected .timedOut.")
            return
        }
        fake.answer(0, with: 1)  // the late callback of the call that timed out
        // The next call's own answer comes 50 ms after its request, from another thread.
        let nextStart = DispatchTime.now()
        let next = client.map { nextCall(on: $0, fake: fake) } ?? .timedOut
        let nextWaited = Double(DispatchTime.now().uptimeNanoseconds - nextStart.uptimeNanoseconds) / 1e9
        if next == .value(1) {
            Issue.record("After a call timed out and its callback came late with 1, the next call returned .value(1), the late answer of the call before it (its own answer, 2, came 50 ms after its request). The late callback released the next call: give every call its own semaphore and its own result, so that a late signal wakes nobody.")
        } else {
            #expect(next == .value(2), "After a call timed out and its callback came late with 1, the next call, answered with 2 50 ms after its request, returned \(next) after \(Int(nextWaited * 1000)) ms (its timeout: 3 s).")
        }
        let start = DispatchTime.now()
        let third = client?.call(timeout: .milliseconds(200)) ?? .timedOut
        let waited = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        #expect(third == .timedOut && waited >= 0.19, "A third call that nobody answered returned \(third) after \(Int(waited * 1000)) ms, expected .timedOut after 200 ms: its wait may end only with its own callback or its timeout.")
        client = nil
        fake.pending.withLock { $0.removeAll() }
        #expect(weakClient == nil, "The client is still alive after its last reference and every callback it handed out were let go: something it created holds it strongly (a retain cycle).")
    }

    /// One call whose request is answered 50 ms later with 2, through the fake's request count.
    static func nextCall(on client: SyncClient<Int>, fake: FakeClient) -> WaitResult<Int> {
        let before = fake.pending.current.count
        let answerer = Thread {
            // Answers the call's request once it has been made.
            let end = DispatchTime.now() + 3
            while fake.pending.current.count == before, DispatchTime.now() < end { usleep(1_000) }
            usleep(50_000)
            fake.answer(before, with: 2)
        }
        answerer.start()
        return client.call(timeout: .seconds(3))
    }
}
