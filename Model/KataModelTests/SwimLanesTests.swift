@testable import KataModel
import Testing

/// The picture: columns named after the threads, the learner's line in each row, the check's own
/// joins left out, the lanes ending at the first failed property, the property in both languages.
@Suite struct SwimLanesTests {
    @Test func aFailureIsDrawnUpToItsPropertyWithTheLinesAndBothLanguages() throws {
        let result = Explorer(budget: 1000).explore {
            let box = Box()
            let lock = ModelLock(kind: "NSLock")
            let threads = (1...2).map { index in
                Model.spawn("adder \(index)") {
                    lock.lock(at: Site(fileID: "Learner/Adder.swift", line: 10))
                    let seen = box.value
                    lock.unlock(at: Site(fileID: "Learner/Adder.swift", line: 12))
                    lock.lock(at: Site(fileID: "Learner/Adder.swift", line: 13))
                    box.value = seen + 1
                    lock.unlock(at: Site(fileID: "Learner/Adder.swift", line: 15))
                }
            }
            Model.join(threads)
            Model.check(box.value == 2, "lost update: \(box.value)", zh: "丢失更新：\(box.value)")
            Model.note("after the check")
        }
        let failure = try #require(result.failure)
        let picture = SwimLanes.render(failure)
        print(picture)
        #expect(picture.contains("| adder 1"))
        #expect(picture.contains("| adder 2"))
        #expect(picture.contains("Adder.swift:12  unlock() on NSLock 1"))
        #expect(!picture.contains("Learner/"), "the module name is left out of file:line")
        #expect(!picture.contains("join adder"), "the check's joins are left out")
        #expect(!picture.contains("after the check"), "the lanes end at the failed property")
        #expect(picture.hasSuffix("✗ lost update: 1\n✗ 丢失更新：1"))
        #expect(picture.contains("schedule \(failure.number)"))
        #expect(picture.contains("code:\(failure.code)"))
    }

    @Test("A cell wider than its column goes on over the next lines of its step, broken at spaces: what an operation did is never cut off")
    func longCellsWrap() {
        let cell = "BoundedBuffer.swift:61  broadcast() on NSCondition 1: wakes consumer 1, consumer 2"
        let lines = SwimLanes.wrap(cell, to: 40)
        #expect(lines.count > 1)
        #expect(lines.allSatisfy { SwimLanes.displayWidth($0) <= 40 }, "\(lines)")
        #expect(lines.joined(separator: " ").split(separator: " ").joined(separator: " ") == cell.split(separator: " ").joined(separator: " "),
                "every word kept, in order: \(lines)")
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("  ") }, "continuation lines are indented")
        #expect(SwimLanes.wrap("short", to: 40) == ["short"])
        let word = String(repeating: "x", count: 50)
        #expect(SwimLanes.wrap(word, to: 20).allSatisfy { SwimLanes.displayWidth($0) <= 20 })
        #expect(SwimLanes.wrap(word, to: 20).joined().filter { $0 == "x" }.count == 50)
    }

    @Test("The Chinese frame: thread names and the words around a call in Chinese, the call itself as code")
    func chineseFrame() {
        #expect(ThreadNames.chinese("producer 1") == "生产者 1")
        #expect(ThreadNames.chinese("queue 'session' block 2") == "队列 'session' 块 2")
        #expect(ThreadNames.chinese("transfer 0 → 1 of 50") == "转账 0 → 1（50）")
        #expect(ThreadNames.chinese("withAccounts(0, 1)") == "withAccounts(0, 1)")
        #expect(SwimLanes.chineseCall("lock() on NSLock 1") == "对 NSLock 1 调用 lock()")
        #expect(SwimLanes.chineseCall("async on 'session' → block 1") == "对 'session' 调用 async → 块 1")
        #expect(SwimLanes.chineseCall("wait() on DispatchSemaphore 1 (value 0)") == "对 DispatchSemaphore 1 调用 wait()（值 0）")
        #expect(SwimLanes.chineseCall("end of sync on 'worker'") == "对 'worker' 的 sync 结束")
        #expect(SwimLanes.chineseCall("finishes") == "finishes")
    }
}
