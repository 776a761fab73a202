import Deadlocks
import Dispatch
import Foundation
import KataTestSupport
import Testing

/// A worker's end: its last reference let go while `async` bodies are still queued. `async`
/// promised to run them, so they still run, in order; the worker is freed; letting go does not
/// wait for them; and a new worker made at once is another queue, also inside the old one's bodies.
extension SerialWorkerTests {
    static let releasePlace = "a worker let go with async bodies still queued"
    static let releaseCrashHint = "A crash here usually means a deinit that waits for the worker's queue (queue.sync): the check lets go of one worker inside one of its own bodies, so its deinit runs on that queue and waits for itself, which libdispatch stops with a trap (SIGILL on x86_64, SIGTRAP on arm64). Nothing needs to wait there: a DispatchQueue keeps itself alive until the blocks queued on it have run."
    /// Rounds of "let go, make a new one at once": a new worker usually gets memory the old one
    /// (and what it owned) just gave back, but not every time.
    static let replacedRounds = 3

    @Test("A worker let go with async bodies still queued runs them all, in order, and is freed, also when its last reference goes inside one of them; a new worker made at once is told apart from it")
    func releasedWorkerRunsItsQueue() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: SerialWorkerTests.releasePlace)
            SerialWorkerTests.releasedWithBodiesQueued()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.releasePlace, crashHint: Self.releaseCrashHint)
    }

    static func releasedWithBodiesQueued() {
        guard releasedInsideItsOwnBody() else { return }
        var told = [Replaced]()
        for _ in 1...replacedRounds {
            guard let round = replacedAtOnce() else { return }
            told.append(round)
        }
        let currentInOld = told.filter { $0.freshCurrentInOld != false }.count
        #expect(
            currentInOld == 0,
            "A worker was let go with async bodies still queued and a new worker with the same label made at once; inside one of the old worker's bodies, the new worker's isCurrent was true (in \(currentInOld) of \(replacedRounds) rounds). It must be true only on the new worker's own queue. A common cause: DispatchQueue.getSpecific(key:) tells keys apart by their address, the old queue still carries its key while it runs what was queued, and a key stored in the worker is freed with it, so the next key made may get its address. Mark the queue with something the queue itself keeps alive: a value of the worker's own (an object, compared with ===) under a key that is never freed.")
        let early = told.filter { $0.freshSyncBeforeItsAsync }.count
        #expect(
            early == 0,
            "newWorker.sync, called from a body of a worker let go just before, ran its body before an async block submitted earlier to the new worker had finished (in \(early) of \(replacedRounds) rounds): sync must go through the new worker's own queue and wait its turn.")
        let notCurrent = told.filter { $0.freshCurrentInSync != true }.count
        #expect(
            notCurrent == 0,
            "Inside newWorker.sync, called from a body of a worker let go just before, newWorker.isCurrent was false (in \(notCurrent) of \(replacedRounds) rounds): that body runs on the new worker's queue.")
    }

    /// The owner lets go inside the worker's second body, with a third still queued: the deinit
    /// runs on the worker's own queue. Returns true when the check may go on.
    static func releasedInsideItsOwnBody() -> Bool {
        let ran = Locked([Int]())
        let inline = Locked(false)
        let gate = DispatchSemaphore(value: 0)
        let released = WeakWorker()
        let owner = Locked<SerialWorker?>(nil)
        let submitted = Watched.onOneThread(in: releasePlace) { steps in
            let worker = SerialWorker(label: "kata.released-inside")
            released.value = worker
            owner.withLock { $0 = worker }
            let caller = ObjectIdentifier(Thread.current)
            steps.enter("async, three times")
            worker.async {
                // A body run at once on the calling thread (no queue at all) must not wait for
                // what that thread does after async returns.
                if ObjectIdentifier(Thread.current) == caller {
                    inline.withLock { $0 = true }
                } else {
                    _ = gate.wait(timeout: .now() + Deadline.promptSeconds)
                }
                ran.withLock { $0.append(1) }
            }
            worker.async {
                let last = owner.withLock { held -> SerialWorker? in
                    defer { held = nil }
                    return held
                }
                withExtendedLifetime(last) {}  // the owner's reference ends here, on the worker's queue
                ran.withLock { $0.append(2) }
            }
            worker.async { ran.withLock { $0.append(3) } }
            steps.tick()
        }
        guard submitted else { return false }
        guard !inline.current else {
            Issue.record("async ran its body at once, on the caller's thread, before returning: async submits the body to the worker's queue and returns; the queue runs it later.")
            return false
        }
        gate.signal()
        guard Deadline.happens(within: Deadline.promptSeconds, { ran.current.count == 3 }) else {
            Issue.record(Comment(rawValue: "Three async bodies were queued on a worker whose last reference then went inside the second one; within \(Deadline.promptSeconds) s only \(ran.current) ran. async promised to run every body: a DispatchQueue runs what is queued on it after the worker is gone, so deinit must neither cancel the queued bodies nor wait for them."))
            return false
        }
        guard ran.current == [1, 2, 3] else {
            Issue.record(Comment(rawValue: "Three async bodies queued on a worker let go meanwhile ran in the order \(ran.current): a serial worker runs them first in, first out, also after its last reference is gone."))
            return false
        }
        guard Deadline.happens(within: Deadline.promptSeconds, { released.value == nil }) else {
            Issue.record(Comment(rawValue: "A worker whose last reference went inside one of its own async bodies was still alive \(Deadline.promptSeconds) s after every queued body had run: something else still holds it (a closure it keeps that captures self strongly, for example)."))
            return false
        }
        return true
    }

    struct Replaced {
        var ran: [Int] = []
        var freshCurrentInOld: Bool?
        var freshCurrentInSync: Bool?
        var freshSyncBeforeItsAsync = false
        var freshAsyncDone = false
    }

    /// A worker let go from outside while its first body is held, and a new one made at once,
    /// which the old worker's second body then calls. Nil when the check cannot go on.
    static func replacedAtOnce() -> Replaced? {
        let record = Locked(Replaced())
        let inside = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let callingFresh = DispatchSemaphore(value: 0)
        let oldDone = DispatchSemaphore(value: 0)
        let freshBox = Locked<SerialWorker?>(nil)
        let released = WeakWorker()
        let letGo = "letting go of the worker's last reference while its first body runs and two more are queued, then SerialWorker(label:)"
        let watched = Watched.onOneThread(in: releasePlace) { steps in
            var old: SerialWorker? = SerialWorker(label: "kata.replaced")
            released.value = old
            steps.enter("async, three times")
            old?.async {
                inside.signal()
                _ = gate.wait(timeout: .now() + Deadline.promptSeconds)
                record.withLock { $0.ran.append(1) }
            }
            old?.async {
                record.withLock { $0.ran.append(2) }
                guard let fresh = freshBox.current else { return }
                record.withLock { $0.freshCurrentInOld = fresh.isCurrent }
                callingFresh.signal()
                fresh.sync {
                    let current = fresh.isCurrent
                    record.withLock {
                        $0.freshCurrentInSync = current
                        $0.freshSyncBeforeItsAsync = !$0.freshAsyncDone
                    }
                }
            }
            old?.async {
                record.withLock { $0.ran.append(3) }
                oldDone.signal()
            }
            steps.waitFor("the worker's first async body starting")
            guard inside.wait(timeout: .now() + Deadline.promptSeconds) == .success else { return }
            // Nothing in between: the new worker is made right after the old one is let go.
            steps.enter(letGo, ifStuck: "The worker's first body was held until the thread that let go of the worker went on: letting go must not wait for the bodies queued on the worker (its queue runs them without it).")
            old = nil
            let fresh = SerialWorker(label: "kata.replaced")
            freshBox.withLock { $0 = fresh }
            steps.enter("async on the new worker")
            fresh.async {
                // Busy until the old worker's body is about to call fresh.sync.
                _ = callingFresh.wait(timeout: .now() + Deadline.promptSeconds)
                record.withLock { $0.freshAsyncDone = true }
            }
            gate.signal()
            steps.waitFor("the old worker's three bodies, the second of which calls sync on the new worker, finishing",
                          ifStuck: "newWorker.sync, called from the old worker's body, should wait for the new worker's own queue, nothing else.")
            _ = oldDone.wait(timeout: .now() + Deadline.promptSeconds)
            withExtendedLifetime(fresh) {}
        }
        guard watched else { return nil }
        let seen = record.current
        guard seen.ran == [1, 2, 3] else {
            Issue.record(Comment(rawValue: "A worker let go while its first async body ran and two more were queued: the bodies ran \(seen.ran) within \(Deadline.promptSeconds) s, expected [1, 2, 3]. async promised to run every body, first in, first out, also after the worker's last reference is gone: a DispatchQueue keeps itself alive until what is queued on it has run."))
            return nil
        }
        guard Deadline.happens(within: Deadline.promptSeconds, { released.value == nil }) else {
            Issue.record(Comment(rawValue: "A worker let go while async bodies were queued was still alive \(Deadline.promptSeconds) s after every queued body had run: something else still holds it (a closure it keeps that captures self strongly, for example)."))
            return nil
        }
        return seen
    }
}

/// A weak reference the check reads from any thread.
final class WeakWorker: @unchecked Sendable {
    private let lock = NSLock()
    private weak var worker: SerialWorker?

    init(_ worker: SerialWorker? = nil) { self.worker = worker }

    var value: SerialWorker? {
        get { lock.lock(); defer { lock.unlock() }; return worker }
        set { lock.lock(); worker = newValue; lock.unlock() }
    }
}
