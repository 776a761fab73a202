import Dispatch
import Foundation
import GatesAndOnce
import KataTestSupport
import Testing

/// What a decision means for work that runs later: it outlives the session, and refused work
/// runs where granted work runs, on the session's queue, so that it may call the session again.
@Suite("SessionQueue decisions", .exitIsAFailure)
struct SessionDecisionTests {
    /// ".granted" or ".refused", as the learner writes it.
    static func said(_ access: Access) -> String {
        access == .granted ? ".granted" : ".refused"
    }

    /// First, one session, one work, opened with access: false (recorded) unless the work ran, so
    /// that a session that drops its work (the untouched stub) fails at once, not after a stall.
    static func worksAtAll(in place: String) -> Bool {
        let proof = WorkLog()
        let session = SessionQueue(label: "kata.session.proof")
        session.async(proof.work(0))
        session.open(granted: true)
        return Patience.waitUntil(in: place, waitingFor: "a work running after open(granted: true)",
                                  hint: "open(granted: true) must release the work.",
                                  unless: { proof.dropped(0..<1, what: "A session opened with access") }, { proof.count == 1 })
    }

    // MARK: The decision outlives the session

    static let outlivesPlace = "work running after its session was released"

    @Test("A decision, once made, is what every queued work hears: also work that runs the moment open() lets the queue go (open() stopped by a signal in the middle of its call, up to 300 times), work that runs after its session was released (granted and refused, 20 sessions), and work queued behind the one that lets its session go, whose deinit then runs on the session's own queue (10 sessions)")
    func decisionOutlivesTheSession() async {
        let ending = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent], IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: Patience.watchdog, in: SessionDecisionTests.outlivesPlace)
            if SessionDecisionTests.worksAtAll(in: SessionDecisionTests.outlivesPlace),
               SessionDecisionTests.releasedInsideItsWork(),
               SessionDecisionTests.interruptedGrants() {
                SessionDecisionTests.outlives()
            }
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.outlivesPlace, crashHint: Self.outlivesCrashHint(ending))
    }

    static let grantsPlace = "open(granted: true), stopped in the middle of its call"

    /// Sessions with one queued work each, opened with `open(granted: true)` by a thread that a
    /// signal stops at whatever instruction its `open()` had reached (see `Interrupter`), while a
    /// second thread waits up to 0.8 ms for the work to run: in rounds of 2,000 fresh sessions,
    /// until 300 interruptions (or `Patience.outer` / 4). Every work must hear `.granted`. An `open()` that lets the queue go
    /// (resume) before it records the decision, stopped between the two, lets the work run and
    /// read "undecided". Returns false once it recorded a failure.
    static func interruptedGrants() -> Bool {
        let roundSize = 2_000, wanted = 300
        var interruptions = 0
        let end = DispatchTime.now() + Patience.outer / 4
        for round in 0..<100 where interruptions < wanted && DispatchTime.now() < end {
            let heard = Locked([Access?](repeating: nil, count: roundSize))
            let all = (0..<roundSize).map { SessionQueue(label: "kata.session.grant.\(round).\($0)") }
            for (number, session) in all.enumerated() {
                session.async { access in heard.withLock { $0[number] = access } }
            }
            guard let (reached, acted) = Interrupter.run(
                count: roundSize, interruptions: wanted - interruptions, seconds: 0.5, quiet: Patience.interruptedQuiet, in: grantsPlace,
                victim: { all[$0].open(granted: true) },
                intruder: { number in
                    // The handler holds the opener for at most 1 ms.
                    let until = DispatchTime.now() + 0.0008
                    while heard.current[number] == nil, DispatchTime.now() < until { sched_yield() }
                })
            else { return false }
            interruptions += acted
            for session in all[reached...] { session.open(granted: true) }
            guard Patience.waitUntil(in: grantsPlace, waitingFor: "the works of \(roundSize) sessions opened with open(granted: true) running (round \(round + 1))",
                                     hint: "open(granted: true) must let the queued work run.",
                                     progress: { heard.current.count { $0 != nil } }, { heard.current.allSatisfy { $0 != nil } })
            else { return false }
            let refused = heard.current.count { $0 == .refused }
            if refused > 0 {
                Issue.record("\(refused) of \(roundSize) sessions opened with open(granted: true) told their work .refused (round \(round + 1), in which open() was stopped by a signal in the middle of its call \(acted) times). A work that hears .refused after open(granted: true) most likely ran before the decision was recorded and read \"undecided\": record the decision first (under the lock), then let the queue go (resume). A work never runs before the decision exists.")
                return false
            }
        }
        return true
    }

    /// What one work saw when it ran: told what, and whether its session was still alive.
    struct Heard: Sendable {
        let access: Access
        let sessionAlive: Bool
    }

    /// 20 sessions, granting and refusing in turn. Each gets a first work that the check holds,
    /// then 3 more; the session is opened, and once the held work runs, the check lets go of the
    /// session (its last reference), and only then of the held work. The 3 works run after
    /// their session is gone, and must hear the decision that was made.
    static func outlives() {
        let sessions = 20, after = 3
        for number in 0..<sessions {
            let granted = number.isMultiple(of: 2)
            let expected: Access = granted ? .granted : .refused
            let held = DispatchSemaphore(value: 0)
            let holding = Locked(false)
            // The thread that calls open(), held strongly (a freed Thread's address may be reused),
            // and whether the held work ran on it.
            let opener = Locked<Thread?>(nil)
            let inline = Locked(false)
            let heard = Locked([Heard]())
            let alive = Weak<SessionQueue>()
            do {
                let session = SessionQueue(label: "kata.session.outlives.\(number)")
                alive.value = session
                session.async { _ in
                    holding.withLock { $0 = true }
                    if Thread.current === opener.current { inline.withLock { $0 = true } }
                    // Held until the check lets go (the watchdog ends a check that never does).
                    held.wait()
                }
                for _ in 0..<after {
                    session.async { access in
                        let record = Heard(access: access, sessionAlive: alive.value != nil)
                        heard.withLock { $0.append(record) }
                    }
                }
                let returned = Locked(false)
                // A Foundation Thread keeps its block for as long as the Thread object lives (the
                // check holds it in `opener`): the block must not capture the session, or the
                // session could never be freed in this check. It takes the session from a box and
                // lets it go before saying that open() returned.
                let handOver = Locked<SessionQueue?>(session)
                Thread {
                    opener.withLock { $0 = Thread.current }
                    do {
                        guard let session = handOver.withLock({ box -> SessionQueue? in defer { box = nil }; return box }) else { return }
                        session.open(granted: granted)
                    }
                    returned.withLock { $0 = true }
                }.start()
                // open() returns although the check holds the first work: it only lets the queue go.
                guard Patience.waitUntil(in: outlivesPlace, waitingFor: "open(granted: \(granted)) returning",
                                         unless: {
                                             guard inline.current, !returned.current else { return nil }
                                             return "open(granted: \(granted)) called the first work itself, on the caller's thread, and waits for it to return (the check holds that work): work runs on the session's own serial queue, never inside open()."
                                         },
                                         { returned.current })
                else { held.signal(); return }
                guard Patience.waitUntil(in: outlivesPlace, waitingFor: "the first work running after open(granted: \(granted))",
                                         hint: "open() must release the queued work.", { holding.current })
                else { held.signal(); return }
            }  // the check's last reference to the session goes here
            // Nothing of the check holds the session any more: unless the queued works hold it
            // themselves (a right way too), it is freed now, before they run.
            let freedFirst = alive.value == nil
            held.signal()
            guard Patience.waitUntil(in: outlivesPlace, waitingFor: "the \(after) works queued behind the first one running",
                                     hint: "Work queued on a session runs once the gate is open, also after the session itself was released.",
                                     progress: { heard.current.count }, { heard.current.count >= after })
            else { return }
            let wrong = heard.current.filter { $0.access != expected }
            guard !wrong.isEmpty else { continue }
            let gone = wrong.filter { !$0.sessionAlive }.count
            if gone > 0 {
                Issue.record("A session opened with open(granted: \(granted)) was released while \(after) of its works were still queued\(freedFirst ? " (it was freed before they ran)" : ""); \(gone) of them ran after the session was freed and were told \(said(wrong[0].access)). A decision, once made, is what every queued work hears, whether the session is still alive or not: a block that reads the decision through the session (`[weak self]` … `self?.decision ?? .refused`) loses it when the session goes. Let the blocks capture the decision itself (a small shared box, or the value), not the session.")
            } else {
                Issue.record("A session opened with open(granted: \(granted)): \(wrong.count) of the \(after) works queued behind the first were told \(said(wrong[0].access)) while the session was still alive. The first open() decides what every work hears.")
            }
            return
        }
    }

    // MARK: Refused work runs on the session's queue

    static let callbackPlace = "refused work calling back into its session"

    static let callbackCrashHint = "A lock taken twice by its own thread traps (Mutex) or hangs (NSLock): did open(granted: false) call the refused work itself, while holding its lock, and the work call async() or open() on the session? Refused work runs on the session's queue, like granted work."

    @Test("Refused work runs on the session's queue, not inside open(granted: false): it may queue a retry and call open() again, and open() returns (granted and refused)")
    func refusedWorkRunsOnTheQueue() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: Patience.watchdog, in: SessionDecisionTests.callbackPlace)
            if SessionDecisionTests.worksAtAll(in: SessionDecisionTests.callbackPlace), SessionDecisionTests.callBack(granted: false) {
                SessionDecisionTests.callBack(granted: true)
            }
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.callbackPlace, crashHint: Self.callbackCrashHint)
    }

    /// One work as it ran: on which thread, told what, and whether its calls into the session
    /// (a retry queued with `async`, then `open(granted: true)`) returned.
    struct Call: Sendable {
        let item: Int
        let access: Access
        let onOpenersThread: Bool
        var calledBack = false
    }

    /// 5 works queued on a closed session; each, when told, queues a retry (`async`) and calls
    /// `open(granted: true)`. A dedicated thread calls `open(granted:)`. Every call must return,
    /// every work and every retry be told the decision once, and none of them run on the opener's
    /// thread inside its call to open().
    @discardableResult
    static func callBack(granted: Bool) -> Bool {
        let queued = 5, retry = 100
        let expected: Access = granted ? .granted : .refused
        let session = SessionQueue(label: "kata.session.callback.\(granted)")
        // The opener's Thread, held strongly: a freed Thread's address may be reused by another.
        let opener = Locked<Thread?>(nil)
        let calls = Locked([Call]())
        let inside = Locked(Set<Int>())
        @Sendable func work(_ item: Int) -> @Sendable (Access) -> Void {
            { access in
                let here = Thread.current
                let index = calls.withLock { list -> Int in
                    list.append(Call(item: item, access: access, onOpenersThread: here === opener.current))
                    return list.count - 1
                }
                guard item < retry else { return }
                inside.withLock { _ = $0.insert(item) }
                session.async(work(retry + item))
                session.open(granted: true)
                inside.withLock { _ = $0.remove(item) }
                calls.withLock { $0[index].calledBack = true }
            }
        }
        for item in 0..<queued { session.async(work(item)) }
        let opened = Patience.call(
            "open(granted: \(granted)) on a session whose works call it back", in: callbackPlace,
            hint: nil, progress: { calls.current.count }
        ) {
            opener.withLock { $0 = Thread.current }
            session.open(granted: granted)
        }
        let total = 2 * queued
        if opened {
            _ = Patience.waitUntil(in: callbackPlace, waitingFor: "the \(queued) works and the \(queued) retries they queued being told \(said(expected))",
                                   progress: { calls.current.count }, { calls.current.count >= total && inside.current.isEmpty })
        }
        let seen = calls.current
        let inline = seen.filter(\.onOpenersThread)
        if !inline.isEmpty {
            let stuck = inline.filter { !$0.calledBack }
            let how = stuck.isEmpty
                ? "."
                : (opened
                    ? ", and its calls into the session did not return."
                    : ", and its call to async() or open() never returned: it waits for the lock that open() holds while calling it, so neither can go on (a deadlock).")
            Issue.record("After open(granted: \(granted)), work \(inline[0].item) was told \(said(inline[0].access)) on the thread that called open(), inside that call\(how) Every work, refused or granted, runs on the session's own serial queue: open() only decides and lets the queue go (queue.async, or resume), and never calls the work itself, least of all while holding its lock. A refused work may well queue a retry or open the session again.")
            return false
        }
        guard opened, seen.count >= total, inside.current.isEmpty else { return false }  // the wait above said what is missing
        let told = seen.filter { $0.access != expected }
        if !told.isEmpty {
            Issue.record("After open(granted: \(granted)), \(told.count) of \(total) works (the queued ones, and the retries each queued while running) were told \(said(told[0].access)): the first open() decides, also for work queued later and for the open(granted: true) each work called.")
            return false
        }
        let firsts = seen.filter { $0.item < retry }.map(\.item)
        guard firsts == Array(0..<queued), seen.count == total else {
            Issue.record("After open(granted: \(granted)), the \(queued) queued works ran in the order \(firsts) and \(seen.count) works were called in all (expected \(total): each of the \(queued), and the retry each queued): each once, in submission order.")
            return false
        }
        return true
    }
}
