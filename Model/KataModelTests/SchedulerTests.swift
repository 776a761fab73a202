import Dispatch
import KataModel
import Testing

/// The runtime alone, on the state machines the twins use.
@Suite struct SchedulerTests {
    @Test func twoThreadsUnderOneLockNeverLoseAnUpdate() {
        let result = Explorer(budget: 300).explore {
            let lock = ModelLock(kind: "NSLock")
            let box = Box()
            let threads = (1...2).map { index in
                Model.spawn("adder \(index)") {
                    lock.lock(at: Site(#fileID, #line))
                    let seen = box.value
                    Model.point("between read and write")
                    box.value = seen + 1
                    lock.unlock(at: Site(#fileID, #line))
                }
            }
            Model.join(threads)
            Model.check(box.value == 2, "lost update: \(box.value)", zh: "丢失更新：\(box.value)")
        }
        #expect(result.failure == nil)
        #expect(result.tried == 300)
    }

    @Test func anUnlockedReadModifyWriteLosesAnUpdateAndReplays() throws {
        let body: @Sendable () -> Void = {
            let box = Box()
            let threads = (1...2).map { index in
                Model.spawn("adder \(index)") {
                    let seen = box.value
                    Model.point("between read and write")
                    box.value = seen + 1
                }
            }
            Model.join(threads)
            Model.check(box.value == 2, "lost update: \(box.value)", zh: "丢失更新：\(box.value)")
        }
        let explorer = Explorer(budget: 1000)
        let first = try #require(explorer.explore(body).failure)
        let again = try #require(explorer.explore(body).failure)
        #expect(first.number == again.number)
        #expect(first.code == again.code)
        let replayed = explorer.replay(first.number, body)
        #expect(replayed.outcome == first.schedule.outcome)
        #expect(replayed.decisions == first.schedule.decisions)
        let fromCode = try #require(explorer.replay(code: first.code, body))
        #expect(fromCode.outcome == first.schedule.outcome)
    }

    @Test func oppositeLockOrderIsReportedAsADeadlockWithWhoWaitsForWhom() throws {
        let result = Explorer(budget: 1000).explore {
            let a = ModelLock(kind: "NSLock")
            let b = ModelLock(kind: "NSLock")
            let one = Model.spawn("left") {
                a.lock(at: Site(#fileID, #line)); b.lock(at: Site(#fileID, #line))
                b.unlock(at: Site(#fileID, #line)); a.unlock(at: Site(#fileID, #line))
            }
            let two = Model.spawn("right") {
                b.lock(at: Site(#fileID, #line)); a.lock(at: Site(#fileID, #line))
                a.unlock(at: Site(#fileID, #line)); b.unlock(at: Site(#fileID, #line))
            }
            Model.join(one, two)
        }
        let failure = try #require(result.failure)
        guard case .deadlock(let text) = failure.schedule.outcome else {
            Issue.record("expected a deadlock, got \(failure.schedule.outcome)")
            return
        }
        #expect(text.en.contains("left waits"))
        #expect(text.en.contains("held by right"))
        #expect(text.en.contains("held by left"))
    }

    @Test func virtualTimeMovesOnlyWhenEveryoneIsBlocked() {
        let result = Explorer(budget: 50).explore {
            let semaphore = ModelSemaphore(value: 0)
            let waiter = Model.spawn("waiter") {
                let got = semaphore.wait(at: Site(#fileID, #line), deadline: 2)
                Model.check(!got, "the wait got a signal nobody sent", zh: "等待得到了没人发送的信号")
                Model.check(Model.now == 2, "woke at \(Model.now), not 2", zh: "在 \(Model.now) 醒来，而不是 2")
            }
            Model.join(waiter)
        }
        #expect(result.failure == nil)
    }

    @Test func aThreadThatSpinsOnTryLockEndsAtTheStepBound() throws {
        let result = Explorer(budget: 1, maxSteps: 500).explore {
            let lock = ModelLock(kind: "NSLock")
            lock.lock(at: Site(#fileID, #line))
            let spinner = Model.spawn("spinner") {
                while !lock.tryLock(at: Site(#fileID, #line)) {}
            }
            Model.join(spinner)
        }
        let failure = try #require(result.failure)
        #expect(failure.schedule.outcome == .stepLimit(500))
    }

    @Test func aThreadLoopingWithoutATwinOperationIsReportedAsStalled() throws {
        // The loop ends by itself after one real second, so that nothing spins after the test.
        let result = Explorer(budget: 1, watchdog: 0.2).explore {
            let until = DispatchTime.now().uptimeNanoseconds + 1_000_000_000
            while DispatchTime.now().uptimeNanoseconds < until {}
        }
        let failure = try #require(result.failure)
        #expect(failure.schedule.outcome == .stalled(0.2))
        #expect(SwimLanes.render(failure).contains("no twin operation"))
    }

    @Test func decisionCodeRoundTrips() {
        let decisions = [0, 0, 0, 0, 0, 1, 2, 1, 1, 35, 0]
        #expect(DecisionCode.decode(DecisionCode.encode(decisions)) == decisions)
    }
}

final class Box: @unchecked Sendable {
    var value = 0
}
