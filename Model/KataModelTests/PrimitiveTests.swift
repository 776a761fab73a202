import KataModel
import Testing

/// The twins' state machines, each against the classic misuse it must expose and the right use
/// it must never flag.
@Suite struct PrimitiveTests {
    static func site(_ line: UInt = #line) -> Site { Site(#fileID, line) }

    @Test func syncOntoTheSerialQueueYouAreOnWaitsForItself() throws {
        let result = Explorer(budget: 10).explore {
            let queue = ModelQueue(label: "worker", concurrent: false)
            queue.sync(barrier: false, at: Self.site()) {
                queue.sync(barrier: false, at: Self.site()) {}
            }
        }
        let failure = try #require(result.failure)
        guard case .deadlock(let text) = failure.schedule.outcome else {
            Issue.record("expected a deadlock, got \(failure.schedule.outcome)")
            return
        }
        #expect(text.en.contains("main waits"))
        #expect(text.en.contains("held by itself"))
    }

    @Test func aBarrierOnAPrivateConcurrentQueueExcludesReadersAndOnAGlobalQueueDoesNot() throws {
        for global in [false, true] {
            let result = Explorer(budget: 500).explore {
                let queue = ModelQueue(label: "q", concurrent: true, global: global)
                let inside = Box()
                let threads = (0..<2).map { index in
                    Model.spawn("thread \(index)") {
                        queue.sync(barrier: index == 0, at: Self.site()) {
                            inside.value += 1
                            Model.point("inside")
                            Model.check(inside.value == 1, "a barrier overlapped another block", zh: "屏障块与其他块重叠")
                            inside.value -= 1
                        }
                    }
                }
                Model.join(threads)
            }
            #expect((result.failure != nil) == global, "global: \(global)")
        }
    }

    @Test func readersOverlapOnAConcurrentQueue() {
        let result = Explorer(budget: 200).explore {
            let queue = ModelQueue(label: "q", concurrent: true)
            let inside = Box()
            let peak = Box()
            let threads = (0..<2).map { index in
                Model.spawn("reader \(index)") {
                    queue.sync(barrier: false, at: Self.site()) {
                        inside.value += 1
                        peak.value = max(peak.value, inside.value)
                        Model.point("inside")
                        inside.value -= 1
                    }
                }
            }
            Model.join(threads)
            Model.check(peak.value == 1, "readers overlapped", zh: "读者重叠")
        }
        // Some schedule lets the two readers meet: the check "never overlapped" must fail.
        #expect(result.failure != nil)
    }

    @Test func aSerialQueueRunsAsyncBlocksInOrderOneAtATime() {
        let result = Explorer(budget: 500).explore {
            let queue = ModelQueue(label: "serial", concurrent: false)
            let order = Log()
            for index in 0..<3 {
                queue.async(barrier: false, at: Self.site()) {
                    order.entries.append(index)
                    Model.point("inside")
                    order.entries.append(index)
                }
            }
            Model.joinAll()
            Model.check(order.entries == [0, 0, 1, 1, 2, 2], "order \(order.entries)", zh: "顺序 \(order.entries)")
        }
        #expect(result.failure == nil)
    }

    @Test func aSignalWithNobodyWaitingIsLost() throws {
        let result = Explorer(budget: 200).explore {
            let condition = ModelCondition()
            let flag = Box()
            let waiter = Model.spawn("waiter") {
                // Wrong on purpose: the look is made before taking the lock.
                let ready = flag.value == 1
                condition.lock.lock(at: Self.site())
                if !ready { _ = condition.wait(at: Self.site()) }
                condition.lock.unlock(at: Self.site())
            }
            let setter = Model.spawn("setter") {
                condition.lock.lock(at: Self.site())
                flag.value = 1
                condition.signal(at: Self.site())
                condition.lock.unlock(at: Self.site())
            }
            Model.join(waiter, setter)
        }
        let failure = try #require(result.failure)
        guard case .deadlock = failure.schedule.outcome else {
            Issue.record("expected a deadlock, got \(failure.schedule.outcome)")
            return
        }
    }

    @Test func aSemaphoreWaitTimesOutInVirtualTimeAndASignalArrivesFirstWhenSent() {
        let result = Explorer(budget: 300).explore {
            let semaphore = ModelSemaphore(value: 0)
            let signaller = Model.spawn("signaller") { semaphore.signal(at: Self.site()) }
            let got = semaphore.wait(at: Self.site(), deadline: 5)
            Model.check(got, "a signal that was sent was missed", zh: "错过了已发送的信号")
            Model.check(Model.now == 0, "time moved while a thread could run", zh: "有线程能运行时时间却前进了")
            Model.join(signaller)
        }
        #expect(result.failure == nil)
    }

    @Test func asyncAfterRunsWhenVirtualTimeReachesItAndGroupNotifyFiresOnce() {
        let result = Explorer(budget: 300).explore {
            let queue = ModelQueue(label: "q", concurrent: true)
            let group = ModelGroup()
            let fired = Log()
            group.enter(at: Self.site())
            queue.async(barrier: false, after: 3, at: Self.site()) {
                Model.check(Model.now == 3, "ran at \(Model.now), not 3", zh: "在 \(Model.now) 运行，而不是 3")
                group.leave(at: Self.site())
            }
            group.notify(queue: queue, at: Self.site()) { fired.entries.append(1) }
            Model.joinAll()
            Model.check(fired.entries == [1], "notify fired \(fired.entries.count) times", zh: "notify 触发了 \(fired.entries.count) 次")
        }
        #expect(result.failure == nil)
    }

    @Test func anUnbalancedLeaveAndAnOverResumeAreFailures() {
        let leave = Explorer(budget: 1).explore {
            ModelGroup().leave(at: Self.site())
        }
        #expect(leave.failure != nil)
        let resume = Explorer(budget: 1).explore {
            ModelQueue(label: "q", concurrent: false).resume(at: Self.site())
        }
        #expect(resume.failure != nil)
    }

    @Test func aLockTakenTwiceByItsThreadWaitsForItselfUnlessRecursive() {
        for recursive in [false, true] {
            let result = Explorer(budget: 1).explore {
                let lock = ModelLock(kind: "L", recursive: recursive)
                lock.lock(at: Self.site())
                lock.lock(at: Self.site())
                lock.unlock(at: Self.site())
                lock.unlock(at: Self.site())
            }
            #expect((result.failure != nil) == !recursive)
        }
    }
}

final class Log: @unchecked Sendable {
    var entries: [Int] = []
}
