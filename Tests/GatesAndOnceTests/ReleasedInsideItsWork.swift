import Dispatch
import Foundation
import GatesAndOnce
import KataTestSupport
import Testing

/// A session whose last reference goes inside one of its own works: its `deinit` runs on the
/// session's own queue, in the middle of a work. Part of `decisionOutlivesTheSession`.
extension SessionDecisionTests {
    static let ownQueuePlace = "a session let go inside one of its own works"

    /// Written to standard error by the work around the moment it lets its session go, so that
    /// the parent can tell a crash there (the session's deinit running on its own queue) from a
    /// crash elsewhere in the check.
    static let lettingGo = "[a work is letting its session go]"
    static let letGoDone = "[the work let its session go]"

    // The trap is libdispatch's: `__DISPATCH_WAIT_FOR_QUEUE__` in swift-corelibs-libdispatch
    // `src/queue.c` crashes the client when the queue's drain lock is held by the calling thread.
    static let ownQueueCrashHint = "The process crashed while a work was letting its session's last reference go, so the session's deinit ran on the session's own queue, in the middle of that work. There, queue.sync { … } onto the session's queue traps (libdispatch: \"dispatch_sync called on queue already owned by current thread\", on Linux without a word), and any wait for that queue waits for itself. A deinit must not wait for its queue: if the gate is still closed, decide .refused and resume; the queued blocks run on their own, after the session is gone."

    /// One session of the phase, seen from outside: its first work's progress, what the works
    /// behind it heard, whether the session is still alive, and the box that holds it.
    final class Released: Sendable {
        let granted: Bool
        let letGo = DispatchSemaphore(value: 0)
        let running = Locked(false)
        /// The first work ran on the check's thread, inside `open()`.
        let inline = Locked(false)
        let returned = Locked(false)
        let heard = Locked([(item: Int, access: Access, sessionAlive: Bool)]())
        let alive = Weak<SessionQueue>()
        let owner = Locked<SessionQueue?>(nil)

        init(granted: Bool) { self.granted = granted }
    }

    /// 10 sessions, granting and refusing in turn, side by side. Each has a first work that holds
    /// until the check lets it go, and that holds, in a box, the session's only reference besides
    /// the check's; then 3 more works. The sessions are opened and the check lets go of its own
    /// references. Then each first work goes on: it queues one more work on its session and
    /// empties the box, so that the session's last reference goes inside that work, on the
    /// session's queue (or with the last block that holds it, on the same queue). Each such work
    /// must return, each session be freed, and the 4 works after it run, in order, told the
    /// decision. Returns false once it recorded a failure.
    static func releasedInsideItsWork() -> Bool {
        let after = 3, queuedInside = 100
        let sessions = (0..<10).map { Released(granted: $0.isMultiple(of: 2)) }
        // The check's thread, held strongly (a freed Thread's address may be reused): a first work
        // that runs on it was called inside open(), and must not wait for the check.
        let checkThread = Locked<Thread?>(Thread.current)
        for (number, released) in sessions.enumerated() {
            let session = SessionQueue(label: "kata.session.inside.\(number)")
            released.alive.value = session
            released.owner.withLock { $0 = session }
            session.async { _ in
                released.running.withLock { $0 = true }
                if Thread.current === checkThread.current {
                    released.inline.withLock { $0 = true }
                    return
                }
                // Held until the check has let go of its own reference (bounded: the check
                // reports a work that never returned, and the watchdog ends a stuck process).
                guard released.letGo.wait(timeout: .now() + Patience.outer) == .success else { return }
                FileHandle.standardError.write(Data((lettingGo + "\n").utf8))
                do {
                    // Out of the box first: the box's lock is not held while the session goes.
                    let last = released.owner.withLock { box -> SessionQueue? in
                        defer { box = nil }
                        return box
                    }
                    last?.async { access in
                        let sessionAlive = released.alive.value != nil
                        released.heard.withLock { $0.append((queuedInside, access, sessionAlive)) }
                    }
                }  // the last reference to the session goes here, on the session's queue
                FileHandle.standardError.write(Data((letGoDone + "\n").utf8))
                released.returned.withLock { $0 = true }
            }
            for item in 0..<after {
                session.async { access in
                    let sessionAlive = released.alive.value != nil
                    released.heard.withLock { $0.append((item, access, sessionAlive)) }
                }
            }
            session.open(granted: released.granted)
        }  // the check's own reference to each session goes at the end of each turn of the loop
        for released in sessions { released.letGo.signal() }
        // Sessions whose first work ran inside open() are not let go inside it: said at the end,
        // after what the others show (a decision lost with its session says more).
        let inlined = sessions.filter { $0.inline.current }
        let onQueue = sessions.filter { !$0.inline.current }
        guard Patience.waitUntil(in: ownQueuePlace, waitingFor: "the first work of each of \(onQueue.count) sessions running after open()",
                                 hint: "open() must release the queued work.",
                                 progress: { onQueue.count { $0.running.current } }, { onQueue.allSatisfy { $0.running.current } })
        else { return false }
        guard Patience.waitUntil(
            in: ownQueuePlace, waitingFor: "the works that let go of their session's last reference returning",
            hint: "A work queued one more work on its session, let go of the session's last reference, and did not return: the session's deinit runs there, on the session's own queue, in the middle of that work. A deinit that waits for the session's queue (a sync onto it, a group's or a semaphore's wait for its blocks) waits for itself there: the queue runs the very work that is waiting. Let deinit only decide .refused (if nobody decided) and resume; the queued blocks run on their own.",
            progress: { onQueue.count { $0.returned.current } }, { onQueue.allSatisfy { $0.returned.current } })
        else { return false }
        let total = after + 1
        guard Patience.waitUntil(
            in: ownQueuePlace, waitingFor: "the \(total) works queued behind the one that let its session go running, on each of \(onQueue.count) sessions",
            hint: "Work queued on a session runs once the gate is open, also when the session's last reference went inside one of its own works.",
            progress: { onQueue.reduce(0) { $0 + $1.heard.current.count } }, { onQueue.allSatisfy { $0.heard.current.count >= total } })
        else { return false }
        // Freed at once by the reference; a block that held its session lets it go when it ends.
        guard Deadline.happens(within: Deadline.promptSeconds, { onQueue.allSatisfy { $0.alive.value == nil } }) else {
            let kept = onQueue.count { $0.alive.value != nil }
            Issue.record("\(kept) of \(onQueue.count) sessions whose last reference was let go inside one of their own works, and whose works had all run, were still alive \(Patience.seconds(Deadline.promptSeconds)) s later: something still holds them (a block, or something the session keeps, that captures the session strongly).")
            return false
        }
        Thread.sleep(forTimeInterval: 0.002)  // time for a duplicate call to show up
        for released in onQueue {
            let granted = released.granted, expected: Access = granted ? .granted : .refused
            let seen = released.heard.current
            let order = seen.map(\.item), wanted = Array(0..<after) + [queuedInside]
            guard order == wanted else {
                Issue.record("A session opened with open(granted: \(granted)) was let go inside its first work, after that work queued one more: the works behind it ran as \(order), expected \(wanted) (the \(after) queued before, then the one queued inside), each once, in submission order.")
                return false
            }
            if let wrong = seen.first(where: { $0.access != expected }) {
                let queued = wrong.item == queuedInside ? "inside that work" : "before it"
                if wrong.sessionAlive {
                    Issue.record("A session opened with open(granted: \(granted)) was let go inside its first work: work \(wrong.item), queued \(queued), ran while the session was still alive and was told \(said(wrong.access)). The first open() decides what every work hears.")
                } else {
                    Issue.record("A session opened with open(granted: \(granted)) was let go inside its first work: work \(wrong.item), queued \(queued), ran after the session was freed and was told \(said(wrong.access)). A decision, once made, is what every queued work hears, whether the session is still alive or not: a block that reads the decision through the session (`[weak self]` … `self?.decision ?? .refused`) loses it when the session goes. Let the blocks capture the decision itself (a small shared box, or the value), not the session.")
                }
                return false
            }
        }
        if let inline = inlined.first {
            Issue.record("open(granted: \(inline.granted)) called the first work itself, on the caller's thread, inside that call: work runs on the session's own serial queue, never inside open().")
            return false
        }
        return true
    }

    /// The crash hint for `decisionOutlivesTheSession`: this phase's when the child's last word
    /// was `lettingGo` (it crashed while a work let its session go), the session's general one
    /// otherwise.
    static func outlivesCrashHint(_ ending: ExitTest.Result?) -> String {
        guard let ending else { return SessionQueueTests.crashHint }
        let output = String(decoding: ending.standardErrorContent, as: UTF8.self)
        guard let begun = output.range(of: lettingGo, options: .backwards) else { return SessionQueueTests.crashHint }
        let crashedLettingGo = output.range(of: letGoDone, options: .backwards).map { $0.lowerBound < begun.lowerBound } ?? true
        return crashedLettingGo ? ownQueueCrashHint : SessionQueueTests.crashHint
    }
}
