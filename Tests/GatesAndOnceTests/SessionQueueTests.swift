import Dispatch
import Foundation
import GatesAndOnce
import KataTestSupport
import Synchronization
import Testing

/// The gate on a serial queue: nothing before `open`, everything after it once and in order, one
/// decision however many threads open, a refusal every work hears of, and a closed session that can
/// be released. Every check runs isolated: a suspended `DispatchQueue` resumed once too often, or
/// released while suspended, is a trap in libdispatch.
@Suite("SessionQueue", .exitIsAFailure)
struct SessionQueueTests {
    static let crashHint = "libdispatch traps (SIGILL on Linux x86_64, SIGTRAP on Apple Silicon) on resume() without a matching suspend() (over-resume: one resume per open() call) and on releasing a queue that is still suspended: resume exactly once, decided under a lock, and resume a queue nobody opened in deinit."

    // MARK: Waits, then runs in order

    static let waitsPlace = "work queued before open(granted: true)"

    @Test("Work queued before open() waits; open(granted: true) runs it all once, in order, one at a time, told .granted, and later work after it")
    func waitsThenRunsInOrder() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: Patience.watchdog, in: SessionQueueTests.waitsPlace)
            SessionQueueTests.waitsThenRuns()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.waitsPlace, crashHint: Self.crashHint)
    }

    static func waitsThenRuns() {
        let log = WorkLog()
        let session = SessionQueue(label: "kata.session.waits")
        for item in 0..<100 { session.async(log.work(item)) }
        if Deadline.happens(within: quietWindow, { log.count > 0 }) {
            Issue.record("\(log.count) work(s) ran before open() was called (items \(log.items.prefix(5).map(String.init).joined(separator: ", "))…): a closed session keeps its work waiting. Create the queue suspended (or keep the work aside) until the gate opens.")
            return
        }
        if let dropped = log.dropped(0..<100, what: "Before open()") {
            Issue.record(Comment(rawValue: dropped))
            return
        }
        guard Patience.call("open(granted: true)", in: waitsPlace, { session.open(granted: true) }) else { return }
        guard waitUntil(in: waitsPlace, waitingFor: "the 100 queued works running after open(granted: true)",
                        hint: "open(granted: true) must release the work: resume the suspended queue (once), or submit what was kept aside.",
                        unless: { log.dropped(0..<100, what: "After open(granted: true)") }, progress: { log.count }, { log.count >= 100 })
        else { return }
        for item in 100..<120 { session.async(log.work(item)) }
        guard waitUntil(in: waitsPlace, waitingFor: "20 works submitted after open(granted: true) running",
                        hint: "Work submitted after the gate opened runs too, after the queued work.",
                        unless: { log.dropped(100..<120, what: "After the gate opened") }, progress: { log.count }, { log.count >= 120 })
        else { return }
        Thread.sleep(forTimeInterval: 0.02)  // time for a duplicate call to show up
        if let problem = log.orderProblem(expected: Array(0..<120)) {
            Issue.record("100 works queued before open(granted: true) and 20 after it should each run once, in submission order: \(problem). A serial queue runs its blocks first in, first out; the gate must not reorder or repeat them.")
        }
        let told = log.calls.current.filter { $0.access != .granted }.count
        #expect(told == 0, "\(told) works were told .refused after open(granted: true): every work runs with .granted once access is granted.")
        #expect(log.meter.peak == 1, "Up to \(log.meter.peak) works ran at the same time: the session runs its work one at a time, on one serial queue.")
    }

    // MARK: Order across open

    static let orderPlace = "submitting while another thread opens"

    @Test("Work submitted while another thread calls open() keeps its submission order (20 rounds)")
    func orderHoldsAcrossOpen() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: Patience.watchdog, in: SessionQueueTests.orderPlace)
            SessionQueueTests.orderAcrossOpen()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.orderPlace, crashHint: Self.crashHint)
    }

    /// One thread submits 1,000 works; when it has submitted 800, a second thread opens the gate.
    /// Works queued before the opening and works submitted during and after it must run in one
    /// line, in submission order. And each of the first 32 works, when it runs, submits a follower:
    /// submitted after the opening, a follower runs after every work queued before it. Keeping the
    /// queued work in an array and submitting it from open() after the lock is released, while
    /// later work goes straight to the queue, lets later work jump ahead.
    static func orderAcrossOpen() {
        let rounds = 20, items = 1_000, openAt = 800, leaders = 32, follower = 10_000
        let began = DispatchTime.now()
        for round in 0..<rounds {
            // On a heavily loaded machine, fewer rounds rather than a late answer.
            if round >= 5, DispatchTime.now() > began + 2.0 { break }
            let log = WorkLog()
            let session = SessionQueue(label: "kata.session.order")
            let submitted = Locked(0)
            let finished = Patience.gang(2, in: orderPlace) { index in
                if index == 0 {
                    for item in 0..<items {
                        var then: (@Sendable () -> Void)?
                        if item < leaders {
                            let next = follower + item
                            then = { session.async(log.work(next)) }
                        }
                        session.async(log.work(item, then: then))
                        submitted.withLock { $0 += 1 }
                    }
                } else {
                    while submitted.current < openAt {}
                    session.open(granted: true)
                }
            }
            guard finished else { return }
            let total = items + leaders
            guard waitUntil(in: orderPlace, waitingFor: "all \(total) works running (round \(round + 1))",
                            hint: "Every work submitted before, during or after open(granted: true) runs once the gate is open.",
                            unless: { log.dropped(0..<items, what: "Round \(round + 1)") },
                            progress: { log.count }, { log.count >= total })
            else { return }
            Thread.sleep(forTimeInterval: 0.002)
            let seen = log.items
            let main = WorkLog.orderProblem(seen: seen.filter { $0 < follower }, expected: Array(0..<items))
            if let problem = main {
                Issue.record("One thread submitted \(items) works while another called open(granted: true) after the first \(openAt): in round \(round + 1), \(problem). Queued work and work submitted during or after the opening form one line: keep one serial queue for both (suspended, then resumed), or move the kept work onto the queue while holding the lock that later submissions take.")
                return
            }
            let lastQueued = seen.firstIndex(of: openAt - 1) ?? 0
            if let early = seen.prefix(lastQueued).first(where: { $0 >= follower }) {
                Issue.record("In round \(round + 1), work \(early - follower), which ran after the gate opened, submitted a new work, and that one ran before work \(openAt - 1), queued before the opening: work submitted later must run after everything queued before it. open() let later work in while it was still moving the queued work onto the queue.")
                return
            }
            let followers = seen.filter { $0 >= follower }
            if followers.count != leaders {
                Issue.record("In round \(round + 1), the \(leaders) works submitted from inside running works ran \(followers.count) times in all; expected once each.")
                return
            }
        }
    }

    // MARK: Many openers

    static let openersPlace = "open() from several threads at once"
    static let pairsPlace = "open() from 2 threads, one stopped in the middle of its call"

    @Test("open() from several threads at once: no crash, one decision, each work called once (4 threads on 100 sessions, granting and refusing; 2 threads in lockstep on at least 6,000 sessions; then 2 threads, one stopped by a signal in the middle of its call, up to 300 times)")
    func openFromManyThreads() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: Patience.watchdog, in: SessionQueueTests.openersPlace)
            SessionQueueTests.manyOpeners()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.openersPlace, crashHint: Self.crashHint + " Here, several threads call open() on one session at the same moment (4 at once, then 2 in lockstep): decide under a lock which call is the first.")
    }

    static func manyOpeners() {
        let sessions = 100, threads = 4, queued = 5
        let logs = (0..<sessions).map { _ in WorkLog() }
        let all = (0..<sessions).map { SessionQueue(label: "kata.session.openers.\($0)") }
        for (session, log) in zip(all, logs) {
            for item in 0..<queued { session.async(log.work(item)) }
        }
        let together = StartBarrier(parties: threads)
        let calls = Locked(0)
        let opened = Patience.gang(threads, in: openersPlace, progress: { calls.current }) { index in
            for session in all {
                // On a barrier broken by a thread stuck in open(), the others go on without it.
                together.arrive(seconds: Patience.stall)
                // Threads 0 and 2 grant, 1 and 3 refuse: the first call to arrive decides. Each
                // thread calls 8 times: the calls after the first keep the session's lock busy, so
                // that a thread between two locked sections of its open() waits there, and the
                // window of a check-then-act (or of a resume before the decision) widens.
                for _ in 0..<8 { session.open(granted: index.isMultiple(of: 2)) }
                calls.withLock { $0 += 1 }
            }
        }
        guard opened else { return }
        for (session, log) in zip(all, logs) { session.async(log.work(queued)) }
        let total = queued + 1
        for (number, log) in logs.enumerated() {
            guard waitUntil(in: openersPlace,
                            waitingFor: "the \(total) works of session \(number + 1) running",
                            hint: "After 4 threads called open() at once, no work ran: the decision was taken (or counted) outside a lock, and no thread thought it was the first, so nobody resumed the queue.",
                            unless: { log.dropped(0..<total, what: "Session \(number + 1), opened from 4 threads") },
                            progress: { logs.reduce(0) { $0 + $1.count } }, { log.count >= total })
            else { return }
        }
        Thread.sleep(forTimeInterval: 0.02)
        for (number, log) in logs.enumerated() {
            if let problem = log.orderProblem(expected: Array(0..<total)) {
                Issue.record("Session \(number + 1), opened by 4 threads at once: \(problem). One decision, one release of the queued work, each work called once.")
                return
            }
            let told = Set(log.calls.current.map(\.access))
            if told.count > 1 {
                Issue.record("Session \(number + 1), opened by 4 threads at once (two granting, two refusing): some works were told .granted and others .refused. The first open() decides for every work; later calls change nothing.")
                return
            }
        }
        guard lockstepOpeners() else { return }
        guard followedOpeners() else { return }
        interruptedOpeners()
    }

    static let lockstepPlace = "open() from 2 threads in lockstep"

    /// Sessions that a failed phase leaves unopened: kept alive, because releasing a suspended
    /// queue traps, and the trap would add a crash (and its over-resume hint) to the message that
    /// says what went wrong.
    nonisolated(unsafe) static var keptAlive: [SessionQueue] = []

    /// Then sessions in batches of 2,000, each with one queued work, each opened by 2 threads
    /// that meet before every session and start together (see `Lockstep`: one of them a swept few
    /// nanoseconds later). Each thread calls `open(granted: true)` on the session, and again and
    /// again until the other's first call returned: whoever decides, the other is inside `open()`
    /// beside it and keeps the session's lock busy. A decision read in one locked section and
    /// taken in the next lets both threads decide and resume (over-resume: a trap); a count read
    /// again after unlocking lets neither resume (the work never runs); a `resume()` before the
    /// decision is recorded lets the work run, and read "undecided", while the decider waits for
    /// the lock the other thread holds. No signals: the threads meet on atomics.
    /// The bound is a count of chances, not of rounds: at least 3 batches, and then more until
    /// 2,000 rounds in which the two first calls overlapped in time (the threads ran at once, or
    /// one was preempted inside its call while the other called): on a busy machine the two
    /// threads seldom run at once, and the phase then runs longer rather than miss the race (up
    /// to 40 batches, or `Patience.outer` / 4 once the first 3 are done). Returns false once it
    /// recorded a failure.
    static func lockstepOpeners() -> Bool {
        let size = 2_000, least = 3, wanted = 2_000, most = 40
        var overlapped = 0
        let end = DispatchTime.now() + Patience.outer / 4
        for batch in 0..<most where batch < least || (overlapped < wanted && DispatchTime.now() < end) {
            let all = (0..<size).map { SessionQueue(label: "kata.session.lockstep.\(batch).\($0)") }
            let heard = Locked([Access?](repeating: nil, count: size))
            for (number, session) in all.enumerated() {
                session.async { access in heard.withLock { $0[number] = access } }
            }
            let calls = FirstCalls(rounds: size)
            // The first batches run to their end whatever the time (the title says at least 6,000).
            let stop = batch < least ? DispatchTime.distantFuture : end
            guard Lockstep.run(rounds: size, until: stop, in: lockstepPlace, waitingFor: "2 threads opening \(size) sessions in lockstep returning", { thread, round in
                var made = 0
                calls.started(thread: thread, round: round)
                repeat {
                    all[round].open(granted: true)
                    made += 1
                    if made == 1 { calls.returned(thread: thread, round: round) }
                } while !calls.hasReturned(thread: 1 - thread, round: round) && made < 16
            }) else { keptAlive += all; return false }
            overlapped += calls.overlapped
            // Sessions no thread reached (the time ran out) are opened here, once.
            for session in all { session.open(granted: true) }
            guard openedByTwo(all, heard: heard, in: lockstepPlace) else { return false }
        }
        return true
    }

    /// After 2 threads opened each of `all` with `open(granted: true)` at once: false (recorded)
    /// unless every session's queued work ran (what it heard is in `heard`), told `.granted`.
    /// Sessions whose work did not run are kept alive (`keptAlive`).
    static func openedByTwo(_ all: [SessionQueue], heard: Locked<[Access?]>, in place: String) -> Bool {
        let count = all.count
        guard Patience.waitUntil(in: place, waitingFor: "the works of \(count) sessions, each opened by 2 threads at once, running",
                                 hint: "Two threads called open(granted: true) on the same session at the same time, and its queued work never ran: the first call was decided outside the lock (a count read again after unlocking, say), and both threads thought they were second, so nobody resumed the queue. Decide, and read the outcome, under one lock.",
                                 progress: { heard.current.count { $0 != nil } }, { heard.current.allSatisfy { $0 != nil } })
        else {
            let stuck = heard.current.count { $0 == nil }
            Issue.record("\(stuck) of \(count) sessions opened by 2 threads at once never ran their work.")
            keptAlive += all
            return false
        }
        let refused = heard.current.count { $0 == .refused }
        if refused > 0 {
            Issue.record("\(refused) of \(count) sessions opened by 2 threads at once, both with open(granted: true), told their work .refused. A work that hears .refused after open(granted: true) most likely ran before the decision was recorded and read \"undecided\": record the decision first (under the lock), then let the queue go (resume).")
            return false
        }
        return true
    }

    /// For the rounds of `lockstepOpeners`: when each thread's first call to `open()` began and
    /// returned, to count the rounds in which the two calls overlapped in time.
    final class FirstCalls: @unchecked Sendable {
        private let returned0 = Atomic<Int>(-1), returned1 = Atomic<Int>(-1)
        /// Per round: start and end of thread 0's first call, then of thread 1's. Each slot is
        /// written by one thread, and read once both threads have returned.
        private let times: UnsafeMutableBufferPointer<UInt64>
        let rounds: Int

        init(rounds: Int) {
            self.rounds = rounds
            times = .allocate(capacity: 4 * rounds)
            times.initialize(repeating: 0)
        }

        deinit { times.deallocate() }

        func started(thread: Int, round: Int) {
            times[4 * round + 2 * thread] = DispatchTime.now().uptimeNanoseconds
        }

        func returned(thread: Int, round: Int) {
            times[4 * round + 2 * thread + 1] = DispatchTime.now().uptimeNanoseconds
            if thread == 0 { returned0.store(round, ordering: .releasing) } else { returned1.store(round, ordering: .releasing) }
        }

        func hasReturned(thread: Int, round: Int) -> Bool {
            (thread == 0 ? returned0.load(ordering: .acquiring) : returned1.load(ordering: .acquiring)) >= round
        }

        /// The rounds whose two first calls overlapped; once both threads have returned.
        var overlapped: Int {
            (0..<rounds).count { r in
                let (s0, e0, s1, e1) = (times[4 * r], times[4 * r + 1], times[4 * r + 2], times[4 * r + 3])
                return e0 > 0 && e1 > 0 && s0 <= e1 && s1 <= e0
            }
        }
    }

    static let followedPlace = "open() from 2 threads, one following the other's session"

    /// Then 5,000 sessions, each with one queued work, opened in turn by one thread while a second
    /// thread follows it: it reads which session the first is opening and calls `open()` on that
    /// one, again and again. Whenever the first thread stands anywhere inside its `open()` (running
    /// beside the follower on the other core, or preempted there: on a busy machine it is, often),
    /// the follower's calls land in the same `open()`: a decision read and taken in two locked
    /// sections lets both threads resume (a trap); a count read again after unlocking lets neither
    /// resume; and the follower's calls keep the lock busy, so a `resume()` before the decision
    /// is recorded leaves the queued work time to read "undecided". No signals: this works on a
    /// machine too busy for the signals of `interruptedOpeners` to land in time. Returns false
    /// once it recorded a failure.
    static func followedOpeners() -> Bool {
        let count = 5_000
        let all = (0..<count).map { SessionQueue(label: "kata.session.followed.\($0)") }
        let heard = Locked([Access?](repeating: nil, count: count))
        for (number, session) in all.enumerated() {
            session.async { access in heard.withLock { $0[number] = access } }
        }
        let leading = Locked(-1)
        let opened = Locked(0)
        guard Patience.gang(2, in: followedPlace, progress: { opened.current }, { index in
            if index == 0 {
                for number in 0..<count {
                    leading.withLock { $0 = number }
                    all[number].open(granted: true)
                    opened.withLock { $0 += 1 }
                }
                leading.withLock { $0 = count }
            } else {
                while true {
                    let number = leading.current
                    if number >= count { return }
                    if number >= 0 { all[number].open(granted: true) }
                }
            }
        }) else { return false }
        return openedByTwo(all, heard: heard, in: followedPlace)
    }

    /// Then sessions opened by two threads, one of them stopped by a signal at whatever
    /// instruction of its `open()` it had reached while the other calls `open()` (see
    /// `Interrupter`), in rounds of 5,000 fresh sessions until `wanted` such interruptions. The
    /// bound is the count, not the clock: on a busy machine (`swift test` runs the suite's other
    /// checks beside this one) a second of interruptions may be a few dozen, and the races below
    /// then slip through (a bound of one second let an over-resume pass this check in 6 runs of 6
    /// with the machine busy); `Patience.outer` / 4 keeps the whole bounded. An opener that counts the calls under a
    /// lock and reads the count again after unlocking, stopped between the two, sees 2 on both
    /// threads, and neither resumes: caught in about one interruption in twelve. An opener that
    /// reads "undecided" and then decides in a second locked call, stopped between the two, lets
    /// the other thread decide and resume too: a second resume() traps. The work is queued after
    /// the openers are done, so that no queue has work to start while they run (the work would
    /// take the cores they need).
    static func interruptedOpeners() {
        let roundSize = 5_000, wanted = 300
        var interruptions = 0
        let end = DispatchTime.now() + Patience.outer / 4
        for round in 0..<100 where interruptions < wanted && DispatchTime.now() < end {
            let all = (0..<roundSize).map { SessionQueue(label: "kata.session.pair.\(round).\($0)") }
            guard let (reached, acted) = Interrupter.run(
                count: roundSize, interruptions: wanted - interruptions, seconds: 0.5, quiet: Patience.interruptedQuiet, in: pairsPlace,
                victim: { all[$0].open(granted: true) }, intruder: { all[$0].open(granted: true) })
            else { return }
            interruptions += acted
            // Sessions the victim did not reach are opened too: a closed one is refused on release.
            for session in all[reached...] { session.open(granted: true) }
            let ran = Locked(Set<Int>())
            for (number, session) in all[..<reached].enumerated() {
                session.async { _ in ran.withLock { _ = $0.insert(number) } }
            }
            guard waitUntil(in: pairsPlace, waitingFor: "the works of \(reached) sessions, each opened by 2 threads, running",
                            hint: "Two threads called open(), one of them stopped for a moment in the middle of its call, and the work submitted afterwards never ran: the first call was decided outside the lock (a count read again after unlocking, say), and both threads thought they were second, so nobody resumed the queue. Decide, and read the outcome, under one lock.",
                            progress: { ran.current.count }, { ran.current.count >= reached })
            else {
                let stuck = (0..<reached).filter { !ran.current.contains($0) }
                Issue.record("\(stuck.count) of \(reached) sessions opened by 2 threads never ran their work (the first: session \(stuck.first.map { $0 + 1 } ?? 0) of round \(round + 1)).")
                keptAlive += all
                return
            }
        }
    }

    // MARK: Refusal

    static let refusalPlace = "open(granted: false)"

    @Test("open(granted: false) tells every work .refused, once, in order, queued or submitted later, and a later open(granted: true) changes nothing")
    func refusalTellsEveryWork() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: Patience.watchdog, in: SessionQueueTests.refusalPlace)
            SessionQueueTests.refusal()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.refusalPlace, crashHint: Self.crashHint)
    }

    static func refusal() {
        let log = WorkLog()
        let session = SessionQueue(label: "kata.session.refused")
        for item in 0..<50 { session.async(log.work(item)) }
        guard Patience.call("open(granted: false)", in: refusalPlace, { session.open(granted: false) }) else { return }
        for item in 50..<60 { session.async(log.work(item)) }
        guard Patience.call("open(granted: true) after a refusal", in: refusalPlace, { session.open(granted: true) }) else { return }
        for item in 60..<70 { session.async(log.work(item)) }
        guard waitUntil(in: refusalPlace, waitingFor: "70 works being told .refused",
                        hint: "Refused work must still hear of it: resume the queue after deciding .refused, so that each block runs and tells its work .refused.",
                        unless: { log.dropped(0..<70, what: "After open(granted: false)") }, progress: { log.count }, { log.count >= 70 })
        else { return }
        Thread.sleep(forTimeInterval: 0.02)
        if let problem = log.orderProblem(expected: Array(0..<70)) {
            Issue.record("50 works queued, open(granted: false), 10 more, open(granted: true), 10 more: each should be told once, in submission order; \(problem).")
        }
        let granted = log.calls.current.filter { $0.access == .granted }.map(\.item)
        #expect(granted.isEmpty, "After open(granted: false), \(granted.count) works were told .granted (items \(granted.prefix(5).map(String.init).joined(separator: ", "))…). The first open() decides for good: a later open(granted: true) changes nothing, and work submitted after a refusal is refused too.")
    }

    // MARK: Released while closed

    static let releasePlace = "releasing a closed session"

    @Test("A session released while still closed does not crash, is freed, and tells each queued work .refused (50 sessions)")
    func releasedWhileClosed() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: Patience.watchdog, in: SessionQueueTests.releasePlace)
            SessionQueueTests.releaseClosed()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.releasePlace, crashHint: "libdispatch traps when a DispatchQueue (or source) is released while suspended: in deinit, if the gate never opened, decide .refused and resume the queue once.")
    }

    static func releaseClosed() {
        // First prove that a session works at all, so that an empty stub does not pass.
        let proof = WorkLog()
        let working = SessionQueue(label: "kata.session.proof")
        working.async(proof.work(0))
        working.open(granted: true)
        guard waitUntil(in: releasePlace, waitingFor: "a work running after open(granted: true)",
                        hint: "open(granted: true) must release the work.",
                        unless: { proof.dropped(0..<1, what: "A session opened with access") }, { proof.count == 1 })
        else { return }

        let sessions = 50
        let logs = (0..<sessions).map { _ in WorkLog() }
        let freed = (0..<sessions).map { _ in Weak<SessionQueue>() }
        for number in 0..<sessions {
            let session = SessionQueue(label: "kata.session.released.\(number)")
            freed[number].value = session
            // Session 0 never gets any work: an empty suspended queue released traps too.
            for item in 0..<(number % 4) { session.async(logs[number].work(item)) }
        }
        // The last reference to each session is gone.
        guard waitUntil(in: releasePlace, waitingFor: "50 released sessions being freed",
                        hint: "Something keeps a released session alive: a block on its queue, or the work, captures self strongly. Let the queued blocks capture what they need (the decision), not the session.",
                        { freed.allSatisfy { $0.value == nil } })
        else { return }
        let expected = (0..<sessions).reduce(0) { $0 + $1 % 4 }
        guard waitUntil(in: releasePlace, waitingFor: "the \(expected) works of the released sessions being told .refused",
                        hint: "A session released while closed refuses its work: decide .refused in deinit and let the blocks run.",
                        unless: {
                            let dropped = (0..<sessions).filter { n in logs[n].dropped(0..<(n % 4), what: "") != nil && n % 4 > 0 }
                            return dropped.isEmpty ? nil : "The works queued on \(dropped.count) sessions released while closed were never told anything, and nothing holds them any more: a released closed session tells each queued work .refused."
                        },
                        progress: { logs.reduce(0) { $0 + $1.count } }, { logs.reduce(0) { $0 + $1.count } >= expected })
        else { return }
        Thread.sleep(forTimeInterval: 0.02)
        for (number, log) in logs.enumerated() where number % 4 > 0 {
            if let problem = log.orderProblem(expected: Array(0..<(number % 4))) {
                Issue.record("A session released while closed: \(problem).")
                return
            }
        }
        let granted = logs.reduce(0) { $0 + $1.calls.current.filter { $0.access == .granted }.count }
        #expect(granted == 0, "\(granted) works of sessions released while closed were told .granted: nobody granted access, so they are refused.")
    }
}

