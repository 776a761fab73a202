import Dispatch
import Foundation
import KataTestSupport
import MainHop
import Testing

/// Hops to and from the main queue. Every check runs isolated, in a child process whose main
/// queue is drained as in the test process (on Linux by pool threads after dispatchMain(), on
/// macOS by the main run loop): a sync onto the main queue from the main queue traps there, and so
/// does a confined value touched elsewhere.
@Suite("Hops", .exitIsAFailure)
struct HopTests {
    static let crashHint = "A trap here usually means DispatchQueue.main.sync was called from a block already on the main queue."

    @Test("Work runs off the main queue and its result is delivered on the main queue")
    func deliversResultOnMainQueue() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "inBackground(_:then:)")
            HopTests.delivers(through: "inBackground(_:then:)", MainHop.inBackground, operationQueue: false)
            IsolatedCheck.finish()
        }
        explain(ending, in: "inBackground(_:then:) called from the main queue", crashHint: Self.crashHint)
    }

    @Test("Through OperationQueue.main: work off the main queue, result delivered by an operation of OperationQueue.main")
    func deliversThroughOperationQueueMain() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "inBackgroundThenMainOperation(_:then:)")
            HopTests.delivers(through: "inBackgroundThenMainOperation(_:then:)", MainHop.inBackgroundThenMainOperation, operationQueue: true)
            IsolatedCheck.finish()
        }
        explain(ending, in: "inBackgroundThenMainOperation(_:then:) called from the main queue", crashHint: Self.crashHint)
    }

    typealias Hop = @Sendable (@escaping @Sendable () -> Int, @escaping @Sendable (Int) -> Void) -> Void

    /// Calls `hop` from a block on the main queue, whose work waits until that call has returned:
    /// work run inline would wait in vain (1 s) and be seen returning late.
    static func delivers(through name: String, _ hop: @escaping Hop, operationQueue: Bool) {
        MainQueueMark.install()
        guard MainQueueMark.isDrained() else { return }
        let returned = Locked(false), callReturned = DispatchSemaphore(value: 0)
        let workOnMain = Locked<Bool?>(nil), returnedBeforeWorkEnded = Locked<Bool?>(nil)
        let delivery = Locked<(value: Int, onMain: Bool, byMainOperation: Bool)?>(nil)
        let delivered = DispatchSemaphore(value: 0)
        let workWatch = ReleaseWatch(), deliverWatch = ReleaseWatch()
        // Made inside the block, so that only the code under test holds them: a closure let go
        // without being called tells the check at once that it will never be called.
        DispatchQueue.main.async {
            hop(workWatch.tie {
                workOnMain.withLock { $0 = MainQueueMark.here }
                _ = callReturned.wait(timeout: .now() + 1)
                returnedBeforeWorkEnded.withLock { $0 = returned.current }
                return 42
            }, deliverWatch.tie { value in
                delivery.withLock { $0 = (value, MainQueueMark.here, OperationQueue.current === OperationQueue.main) }
                delivered.signal()
            })
            returned.withLock { $0 = true }
            callReturned.signal()
        }
        guard Deadline.wait(for: delivered, in: name, waitingFor: "the result being delivered", unless: {
            guard returned.current else { return nil }
            if workWatch.isReleased, workOnMain.current == nil {
                return "\(name) returned and let go of the work without running it. Run the work on a global queue, then deliver its result on the main queue."
            }
            if deliverWatch.isReleased {
                return "\(name) let go of the delivery closure without calling it. Call it with the work's result, on the main queue."
            }
            return nil
        }) else { return }
        #expect(workOnMain.current == false, "\(name) ran the work on the main queue: while it runs, the app cannot draw or react to touches. Run it on a global queue (DispatchQueue.global().async).")
        #expect(returnedBeforeWorkEnded.current == true, "\(name) returned only after the work ended: it ran the work on the calling thread (here the main queue). Start the work on a global queue and return at once.")
        guard let delivery = delivery.current else { return }
        #expect(delivery.value == 42, "The delivery received \(delivery.value), expected the work's result 42.")
        #expect(delivery.onMain, "The result was delivered off the main queue: UI objects may be touched only on the main queue. Deliver it with \(operationQueue ? "OperationQueue.main.addOperation" : "DispatchQueue.main.async").")
        if operationQueue {
            #expect(delivery.byMainOperation, "The result was delivered on the main queue, but not by an operation of OperationQueue.main (OperationQueue.current was not OperationQueue.main there). Deliver it with OperationQueue.main.addOperation.")
        }
    }

    @Test("onMainAndWait from a thread and from a global queue runs its body on the main queue and returns its result")
    func onMainAndWaitFromAnyThread() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "onMainAndWait from other threads")
            HopTests.fromOtherThreads()
            IsolatedCheck.finish()
        }
        explain(ending, in: "onMainAndWait from other threads", crashHint: Self.crashHint)
    }

    /// Calls onMainAndWait from a Thread and from a global queue; true when both ran on main.
    @discardableResult
    static func fromOtherThreads() -> Bool {
        MainQueueMark.install()
        guard MainQueueMark.isDrained() else { return false }
        let seen = Locked([String: Bool]())
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let onMain = MainHop.onMainAndWait { (MainQueueMark.here, 7) }
            seen.withLock { $0["a Thread"] = onMain.0 && onMain.1 == 7 }
            done.signal()
        }
        thread.start()
        DispatchQueue.global().async {
            let onMain = MainHop.onMainAndWait { (MainQueueMark.here, 8) }
            seen.withLock { $0["a global queue"] = onMain.0 && onMain.1 == 8 }
            done.signal()
        }
        for _ in 0..<2 {
            guard Deadline.wait(for: done, in: "onMainAndWait called from other threads", waitingFor: "onMainAndWait returning") else { return false }
        }
        for (caller, ok) in seen.current.sorted(by: { $0.key < $1.key }) where !ok {
            Issue.record("onMainAndWait called from \(caller) ran its body off the main queue (or returned another value than the body's). From any queue but the main queue, run the body with DispatchQueue.main.sync.")
        }
        return seen.current.values.allSatisfy { $0 }
    }

    static let fromMainMarker = "calling onMainAndWait from the main queue"

    @Test("onMainAndWait from the main queue runs its body inline instead of deadlocking")
    func onMainAndWaitFromMainRunsInline() async {
        let ending = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent], IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "onMainAndWait from the main queue")
            guard HopTests.fromOtherThreads() else { IsolatedCheck.finish() }
            HopTests.fromMain()
            IsolatedCheck.finish()
        }
        if let ending, case .signal = ending.exitStatus, Marker.said(Self.fromMainMarker, in: ending) {
            Issue.record("Deadlock: onMainAndWait called from a block on the main queue ended the process (\(ending.exitStatus)). libdispatch traps a sync onto the queue the caller is running on, since it could never return. When the caller is already on the main queue, run the body inline; ask the queue (DispatchQueue.getSpecific with a key set on the main queue), not the thread: here the main queue is drained by a pool thread, on which Thread.isMainThread is false.")
            return
        }
        explain(ending, in: "onMainAndWait from the main queue", crashHint: Self.crashHint)
    }

    static func fromMain() {
        let result = Locked<(Bool, Int)?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.main.async {
            Marker.say(fromMainMarker)
            let outer = MainHop.onMainAndWait { () -> (Bool, Int) in
                let inner = MainHop.onMainAndWait { MainQueueMark.here ? 5 : -1 }
                return (MainQueueMark.here, inner)
            }
            result.withLock { $0 = outer }
            done.signal()
        }
        guard Deadline.wait(for: done, in: "onMainAndWait called from the main queue", waitingFor: "onMainAndWait returning",
                            hint: "A sync onto the main queue from the main queue waits for itself.") else { return }
        #expect(result.current?.0 == true && result.current?.1 == 5, "onMainAndWait called from the main queue (and again inside its body) did not run its body on the main queue with its result: got \(String(describing: result.current)).")
    }

    static let touchedOnMain = "the confined value was read and written on the main queue"
    static let touchingElsewhere = "touching the confined value on a global queue"

    @Test("A MainConfined value works on the main queue and traps when read or written on another queue")
    func mainConfinedTrapsOffMain() async {
        // One exit test per access: an exit test's closure captures nothing (Swift 6.2 has no
        // capture lists there).
        let read = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent], IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "MainConfined read off the main queue")
            HopTests.touchConfined(write: false)
            IsolatedCheck.finish()
        }
        guard Self.judgeConfined(read, access: "read") else { return }
        let written = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent], IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "MainConfined written off the main queue")
            HopTests.touchConfined(write: true)
            IsolatedCheck.finish()
        }
        Self.judgeConfined(written, access: "written")
    }

    /// True when the child trapped where it should: after it began touching the value on a
    /// global queue, and not before.
    @discardableResult
    static func judgeConfined(_ ending: ExitTest.Result?, access: String) -> Bool {
        guard let ending else { return false }
        let onMainOK = Marker.said(touchedOnMain, in: ending), elsewhere = Marker.said(touchingElsewhere, in: ending)
        switch ending.exitStatus {
        case .signal where elsewhere:
            return true  // the trap the check expects
        case .signal where !onMainOK:
            Issue.record("A MainConfined value trapped when it was \(access) on the main queue (\(ending.exitStatus)). Check the queue, not the thread: dispatchPrecondition(condition: .onQueue(.main)). Here the main queue is drained by a pool thread, on which Thread.isMainThread is false.")
        case .exitCode(IsolatedCheck.finishedCode) where elsewhere:
            Issue.record("A MainConfined value was \(access) on a global queue and nothing trapped. Guard both the getter and the setter with dispatchPrecondition(condition: .onQueue(.main)), as Main Thread Checker would stop a view touched off the main thread.")
        default:
            explain(ending, in: "MainConfined \(access) on and off the main queue", crashHint: crashHint)
        }
        return false
    }

    static func touchConfined(write: Bool) {
        MainQueueMark.install()
        guard MainQueueMark.isDrained() else { return }
        let confined = MainConfined(1)
        let done = DispatchSemaphore(value: 0)
        let seen = Locked(0)
        DispatchQueue.main.async {
            confined.value = 2
            seen.withLock { $0 = confined.value }
            done.signal()
        }
        guard Deadline.wait(for: done, in: "MainConfined on the main queue", waitingFor: "the block on the main queue") else { return }
        guard seen.current == 2 else {
            Issue.record("A MainConfined value written 2 on the main queue read back \(seen.current).")
            return
        }
        Marker.say(touchedOnMain)
        DispatchQueue.global().async {
            Marker.say(touchingElsewhere)
            if write { confined.value = 3 } else { seen.withLock { $0 = confined.value } }
            done.signal()
        }
        Deadline.wait(for: done, in: "MainConfined on a global queue", waitingFor: "the block on the global queue")
    }
}
