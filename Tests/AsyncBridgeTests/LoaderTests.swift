import AsyncBridge
import Foundation
import KataTestSupport
import Testing

/// `Loader`: an actor that shares one fetch per key among concurrent callers, across its own
/// suspension points (reentrancy).
@Suite("Loader", .exitIsAFailure)
struct LoaderTests {
    @Test("50 concurrent loads of one key: one fetch, 50 equal results, and fetchCount says 1")
    func concurrentLoadsShareOneFetch() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "Loader with 50 concurrent loads")
            await LoaderTests.shareOneFetch()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "Loader with 50 concurrent loads", crashHint: "A trap here usually means a continuation was resumed twice (or never stored).")
    }

    static let concurrentLoads = 50

    static func shareOneFetch() async {
        let client = FakeClient { _, _ in .hold }
        let loader = Loader(client: client)
        let started = Locked(0)
        let tasks = (0..<concurrentLoads).map { _ in
            Tracked {
                started.withLock { $0 += 1 }
                return try await loader.load("shared")
            }
        }
        // Hold the fetch until every caller has had time to reach the actor: a loader that starts a
        // fetch per caller shows it now.
        guard await Awaiting.until(in: "Loader.load", waitingFor: "the first fetch reaching the client",
                                   unless: { tasks.allSatisfy(\.isFinished) ? "Every load ended without reaching the client: load should start a fetch through the client (the fetch function you wrote) when no fetch of the key is in flight." : nil },
                                   { client.fetchCount >= 1 }) else { return }
        await Awaiting.until(in: "Loader.load", waitingFor: "all 50 load tasks starting") { started.current == concurrentLoads }
        try? await Task.sleep(nanoseconds: 50_000_000)
        client.releaseAll { _ in .success(payload("shared")) }
        var results: [Data] = []
        for task in tasks {
            let outcome = await Awaiting.outcome(of: task, within: Deadline.promptSeconds)
            if case .returned(let data) = outcome {
                results.append(data)
            } else {
                Issue.record("A load of \"shared\" \(outcome.summary) after the shared fetch returned a value; every caller should get that value.")
                client.releaseAll { _ in .success(payload("shared")) }
                break
            }
        }
        let fetches = client.fetchCount
        #expect(fetches == 1, "\(concurrentLoads) concurrent loads of one key made \(fetches) fetches; expected 1. Actor reentrancy: at every await inside load, other loads run. Check the cache, await, then insert, and each of them finds nothing in flight. Record the fetch in flight before the first await, and let later callers wait for it.")
        if results.count == concurrentLoads {
            #expect(results.allSatisfy { $0 == payload("shared") }, "Some loads got other data than the fetch's value.")
        }
        let reported = await loader.fetchCount
        #expect(reported == fetches, "fetchCount says \(reported); the client saw \(fetches) fetches.")
    }

    @Test("After a failed fetch the next load fetches again; a loaded value is kept")
    func failuresAreNotCached() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "Loader after a failure")
            await LoaderTests.failureThenValue()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "Loader after a failure", crashHint: "A trap here usually means a continuation was resumed twice.")
    }

    static func failureThenValue() async {
        // The first fetch fails, every later one succeeds.
        let client = FakeClient { key, call in call == 0 ? .soon(.failure(FakeError(id: "server down"))) : .soon(.success(payload(key))) }
        let loader = Loader(client: client)
        let first = await Awaiting.outcome(of: Task { try await loader.load("flaky") }, within: Deadline.promptSeconds)
        guard case .threw(let error) = first, (error as? FakeError) == FakeError(id: "server down") else {
            Issue.record("The first load of \"flaky\", whose fetch failed with FakeError(server down), \(first.summary); it should throw the fetch's error.")
            return
        }
        let second = await Awaiting.outcome(of: Task { try await loader.load("flaky") }, within: Deadline.promptSeconds)
        guard case .returned(let data) = second, data == payload("flaky") else {
            Issue.record("After a failed fetch, the next load of the key \(second.summary) with \(client.fetchCount) fetches made; it should fetch again and return the value. A failure must not be cached: keep only values, and forget the fetch in flight when it ends.")
            return
        }
        let third = await Awaiting.outcome(of: Task { try await loader.load("flaky") }, within: Deadline.promptSeconds)
        #expect(client.fetchCount == 2, "Three loads of one key (failure, value, value) made \(client.fetchCount) fetches; expected 2: a value once loaded is kept, and the next load returns it without fetching.")
        if case .returned(let data) = third, data == payload("flaky") {} else {
            Issue.record("The third load of \"flaky\" \(third.summary); it should return the kept value.")
        }
        let reported = await loader.fetchCount
        #expect(reported == client.fetchCount, "fetchCount says \(reported); the client saw \(client.fetchCount) fetches.")
    }

    @Test("Cancelling one of three waiting loads ends it with CancellationError at once; the shared fetch goes on and the others get the value")
    func cancelledWaiterLeavesAlone() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "Loader with a cancelled waiter")
            await LoaderTests.cancelOneWaiter()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "Loader with a cancelled waiter", crashHint: "A trap here usually means a continuation was resumed twice: by the cancellation and again by the shared fetch's result. Remove a waiter when you resume it.")
    }

    static func cancelOneWaiter() async {
        let client = FakeClient { _, _ in .hold }
        let loader = Loader(client: client)
        let started = Locked(0)
        let tasks = (0..<3).map { _ in
            Tracked {
                started.withLock { $0 += 1 }
                return try await loader.load("slow")
            }
        }
        guard await Awaiting.until(in: "Loader.load", waitingFor: "the fetch reaching the client",
                                   unless: { tasks.allSatisfy(\.isFinished) ? "Every load ended without reaching the client: load should start a fetch through the client." : nil },
                                   { client.fetchCount >= 1 }) else { return }
        await Awaiting.until(in: "Loader.load", waitingFor: "all 3 load tasks starting") { started.current == 3 }
        try? await Task.sleep(nanoseconds: 30_000_000)
        tasks[1].cancel()
        let cancelled = await Awaiting.outcome(of: tasks[1], within: 2)
        let heldWhenCancelledEnded = client.heldCount
        if !cancelled.ended {
            Issue.record("A cancelled load kept waiting for the shared fetch (still running 2 s later). Awaiting a shared Task's value does not react to the caller's cancellation: park each caller in a continuation of its own, and resume it with CancellationError from withTaskCancellationHandler.")
        } else if !cancelled.isCancellationError {
            Issue.record("The cancelled load \(cancelled.summary); it should throw CancellationError.")
        } else if heldWhenCancelledEnded == 0 && client.cancelCount == 0 {
            Issue.record("The cancelled load ended only after the shared fetch had ended; it should stop waiting as soon as it is cancelled.")
        }
        #expect(client.cancelCount == 0, "Cancelling one caller cancelled the shared request (request.cancel() was called): the others still want the value. The shared fetch must not belong to any single caller's task.")
        client.releaseAll { _ in .success(payload("slow")) }
        for index in [0, 2] {
            let outcome = await Awaiting.outcome(of: tasks[index], within: Deadline.promptSeconds)
            if case .returned(let data) = outcome, data == payload("slow") { continue }
            Issue.record("A load that was not cancelled \(outcome.summary); it should get the shared fetch's value. Cancelling one caller must not end the fetch the others share.")
        }
        #expect(client.fetchCount == 1, "Three loads of one key made \(client.fetchCount) fetches; expected 1.")
    }
}
