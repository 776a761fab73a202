import Dispatch
import Foundation
import GatesAndOnce
import KataTestSupport
import Testing

/// Run-once initialization: the initializer runs on first use and never again, however many
/// threads ask at once; a failure is not a value; re-entry stops with a precondition failure
/// instead of a deadlock; one box's initializer may read another. Isolated: a box that waits for
/// itself hangs, and one that initializes twice at once may crash.
@Suite("Lazy", .exitIsAFailure)
struct LazyTests {
    static let crashHint = "A crash here usually means two threads stored into the box at once (no lock), or a lock taken twice by its own thread."

    // MARK: One thread

    static let oneThreadPlace = "reading a Lazy on one thread"

    @Test("The initializer runs on the first read, not in init, and never again: 100 reads, one value; a box let go, read or not, frees its initializer and its value")
    func computesOnFirstReadOnce() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: Patience.watchdog, in: LazyTests.oneThreadPlace)
            if LazyTests.oneThread() { LazyTests.released() }
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.oneThreadPlace, crashHint: Self.crashHint)
    }

    /// True when the reads returned (whatever they returned).
    @discardableResult
    static func oneThread() -> Bool {
        let runs = Locked(0)
        let box = Lazy<Token> {
            let run = runs.withLock { count -> Int in
                count += 1
                return count
            }
            return Token(run)
        }
        #expect(runs.current == 0, "Lazy's init called the initializer: it should only keep it, and call it on the first read of value.")
        let read = Patience.call("100 reads of value", in: oneThreadPlace,
                                      hint: "Reading value on one thread must not wait for anything: a lock left locked after the first read?") {
            var seen = Set<ObjectIdentifier>()
            for _ in 0..<100 {
                guard let token = try? box.value else { continue }
                seen.insert(ObjectIdentifier(token))
            }
            #expect(seen.count == 1, "100 reads of value returned \(seen.count) different values: every read after the first returns the stored value.")
        }
        guard read else { return false }
        #expect(runs.current == 1, "100 reads of value ran the initializer \(runs.current) times: run it on the first read only, and keep its value.")
        return true
    }

    // MARK: Contention

    static let contentionPlace = "8 threads reading a fresh Lazy at once"

    @Test("8 threads reading a fresh box at the same moment: the initializer runs once, and all 8 get its value (150 boxes)")
    func onceUnderContention() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: Patience.watchdog, in: LazyTests.contentionPlace)
            LazyTests.contention()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.contentionPlace, crashHint: Self.crashHint)
    }

    struct Round {
        var runs = 0
        var seen = Set<ObjectIdentifier>()
        var errors = 0
    }

    static func contention() {
        let threads = 8, boxes = 150
        let rounds = (0..<boxes).map { _ in Locked(Round()) }
        let all = (0..<boxes).map { number in
            Lazy<Token> {
                let run = rounds[number].withLock { round -> Int in
                    round.runs += 1
                    return round.runs
                }
                // A slow initializer that gives up its core (as one doing I/O does): the other
                // threads run and ask meanwhile, even when they share one core.
                usleep(200)
                return Token(run)
            }
        }
        let together = StartBarrier(parties: threads)
        let began = DispatchTime.now()
        let done = Locked(0)
        // On a heavily loaded machine (every suite of the course at once, the other core busy) a
        // round can take 100 ms: fewer rounds rather than a late answer, and a deadline that only a
        // thread stuck in the box misses. Each round of 8 racing readers catches a check-then-set
        // nearly every time, so 10 rounds are plenty.
        // Thread 0 alone decides which round is the last, before it arrives at that round's barrier,
        // so that every thread stops at the same round (one that stopped alone would leave the
        // others waiting for it at the next barrier).
        let lastRound = Locked<Int?>(nil)
        let finished = Patience.gang(threads, in: contentionPlace, progress: { done.current }) { index in
            for number in 0..<boxes {
                if index == 0, number >= 10, DispatchTime.now() > began + 1.5 { lastRound.withLock { $0 = number } }
                guard together.arrive(seconds: Patience.outer) else { return }
                if let last = lastRound.current, last <= number { return }
                do {
                    let token = try all[number].value
                    rounds[number].withLock { _ = $0.seen.insert(ObjectIdentifier(token)) }
                } catch {
                    rounds[number].withLock { $0.errors += 1 }
                }
                done.withLock { $0 = max($0, number + 1) }
            }
        }
        guard finished else { return }
        let results = rounds.prefix(done.current).map(\.current)
        let several = results.filter { $0.runs > 1 }
        #expect(several.isEmpty, "In \(several.count) of \(results.count) rounds of 8 threads reading a fresh box at once, the initializer ran more than once (up to \(several.map(\.runs).max() ?? 0) times). Checking \"is it stored yet?\" and then initializing, without one lock around both (or locking only the store), lets every thread that looked before the first store initialize too: lazy var does exactly that.")
        let split = results.filter { $0.seen.count > 1 }
        #expect(split.isEmpty, "In \(split.count) rounds, the 8 threads did not all get the same value (up to \(split.map(\.seen.count).max() ?? 0) different ones): a caller that arrives while the value is being computed waits for it, and gets that one value.")
        let errors = results.reduce(0) { $0 + $1.errors }
        #expect(errors == 0, "value threw \(errors) times although the initializer never throws.")
    }

    // MARK: Failure

    static let failurePlace = "an initializer that throws once"

    @Test("An initializer that throws stores nothing: the caller gets the error, the next read tries again, and its value is then kept")
    func failureIsNotCached() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: Patience.watchdog, in: LazyTests.failurePlace)
            LazyTests.failure()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.failurePlace, crashHint: Self.crashHint)
    }

    static func failure() {
        let attempts = Locked(0)
        let box = Lazy<Token> {
            let attempt = attempts.withLock { count -> Int in
                count += 1
                return count
            }
            if attempt == 1 { throw InitializationFailed(attempt: 1) }
            return Token(attempt)
        }
        let outcomes = Locked([String]())
        let tokens = Locked([ObjectIdentifier]())
        // Each read on a thread of its own: a lock left locked by the failed read is a hang there.
        for (read, hint) in [
            "the first read (the initializer throws)",
            "the second read, on another thread",
            "the third read, on a third thread",
        ].map({ ($0, "Reading value after a failed initialization never returned: a lock taken before the initializer was not unlocked when it threw (use defer, or unlock on every path).") }) {
            guard Patience.call(read, in: failurePlace, hint: hint, {
                do {
                    let token = try box.value
                    tokens.withLock { $0.append(ObjectIdentifier(token)) }
                    outcomes.withLock { $0.append("value") }
                } catch let error as InitializationFailed {
                    outcomes.withLock { $0.append("error \(error.attempt)") }
                } catch {
                    outcomes.withLock { $0.append("another error (\(error))") }
                }
            }) else { return }
        }
        let seen = outcomes.current
        #expect(seen.first == "error 1", "The first read should throw the initializer's own error (InitializationFailed(attempt: 1)); it gave: \(seen.first ?? "nothing"). Rethrow what the initializer throws.")
        #expect(Array(seen.dropFirst()) == ["value", "value"], "After the initializer threw once, the next reads gave \(Array(seen.dropFirst())), expected a value each: a failed initialization is not a value. Store nothing on failure, so that the next read tries again.")
        #expect(attempts.current == 2, "The initializer ran \(attempts.current) times for a failed read and two good ones: expected 2 (the failure, then the success, which is kept).")
        #expect(Set(tokens.current).count <= 1, "The two reads after the failure returned different values: the successful value must be kept.")
        failureWhileOthersWait()
    }

    /// Then, 5 times: a first reader's initialization is held by the check until 3 more readers
    /// have asked and are waiting for it, and then throws. Every reader returns (the first with the
    /// error; the waiters with a value after one of them tried again, or with the error); none
    /// sleeps for ever waiting for a value that is not coming. Nobody else reads meanwhile, so a
    /// failure that wakes no waiter leaves them waiting: no later reader's success wakes them by chance.
    static func failureWhileOthersWait() {
        let waiters = 3
        for round in 0..<5 {
            let attempts = Locked(0)
            let inFirst = Locked(false)
            let letFail = DispatchSemaphore(value: 0)
            let box = Lazy<Token> {
                let attempt = attempts.withLock { count -> Int in
                    count += 1
                    return count
                }
                if attempt == 1 {
                    inFirst.withLock { $0 = true }
                    letFail.wait()  // held until the waiters are waiting (the watchdog ends a check that never lets go)
                    throw InitializationFailed(attempt: 1)
                }
                return Token(attempt)
            }
            let outcomes = Locked([String]())
            let values = Locked(Set<ObjectIdentifier>())
            let asked = Locked(0)
            @Sendable func read() {
                asked.withLock { $0 += 1 }
                do {
                    let token = try box.value
                    values.withLock { _ = $0.insert(ObjectIdentifier(token)) }
                    outcomes.withLock { $0.append("value") }
                } catch {
                    outcomes.withLock { $0.append("error") }
                }
            }
            Thread { read() }.start()
            guard Patience.waitUntil(in: failurePlace, waitingFor: "the first read's initializer starting",
                                     unless: { outcomes.current.isEmpty ? nil : "value returned without calling the initializer (or without waiting for it) on a fresh box." },
                                     { inFirst.current })
            else { letFail.signal(); return }
            for _ in 0..<waiters { Thread { read() }.start() }
            // Time for the waiters to ask and wait: a thread that has not yet asked when the first
            // initialization fails would try again itself, which is right too.
            let settled = Heartbeat.mark()
            _ = Patience.waitUntil(in: failurePlace, waitingFor: "3 readers asking", { asked.current > waiters })
            while Heartbeat.elapsed(since: settled) < 0.03 { usleep(1_000) }
            if let early = outcomes.current.first {
                Issue.record("While the first initialization was still running, a reader returned (\(early)): a caller that arrives while the value is being computed waits for it.")
                letFail.signal()
                return
            }
            letFail.signal()
            guard Patience.waitUntil(
                in: failurePlace, waitingFor: "the \(waiters) readers that were waiting for a failed initialization returning (round \(round + 1))",
                hint: "\(waiters) threads were waiting for the first initialization when it threw, and not all of them returned: a failure must wake the threads waiting for it too (broadcast whether the initializer returned or threw), and one of them then tries again. A waiter woken only by a stored value waits for ever.",
                progress: { outcomes.current.count }, { outcomes.current.count > waiters })
            else { return }
            guard let token = try? box.value else {
                Issue.record("After an initialization failed while \(waiters) threads were waiting, a later read still threw: the failure was kept as the box's value. Store nothing on failure.")
                return
            }
            values.withLock { _ = $0.insert(ObjectIdentifier(token)) }
            guard values.current.count == 1, attempts.current == 2 else {
                Issue.record("After a failed initialization with \(waiters) readers waiting, the initializer ran \(attempts.current) times and readers got \(values.current.count) different values: one retry (by one of the waiters or a later reader), whose value every reader then gets.")
                return
            }
        }
    }

    // MARK: Re-entry

    static let reentryPlace = "an initializer reading its own box"
    static let readyMarker = "[an ordinary Lazy worked]"

    @Test("An initializer that reads its own box stops the process with a precondition failure, not a deadlock")
    func reentryIsAPreconditionFailure() async {
        let ending = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent], IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: Patience.watchdog, in: LazyTests.reentryPlace)
            LazyTests.reenter()
            IsolatedCheck.finish()
        }
        guard let ending else { return }
        let output = String(decoding: ending.standardErrorContent, as: UTF8.self)
        switch ending.exitStatus {
        case .signal(let signal):
            // precondition() and fatalError() stop the process with SIGILL on Linux x86_64 and
            // SIGTRAP on Apple Silicon; so do libdispatch's and a Mutex's own traps, so the
            // message on standard error tells them apart.
            if !output.contains(Self.readyMarker) {
                Issue.record("The process crashed (\(IsolatedCheck.signalName(signal))) before the re-entry: an ordinary box, whose initializer does not read itself, should return its value.")
            } else if output.contains("Recursive call to lock Mutex") {
                Issue.record("The re-entry was stopped by Mutex itself (\"Recursive call to lock Mutex\"), not by a precondition of your box. That is Linux's behaviour today; on Apple platforms a Mutex is an os_unfair_lock, whose trap says nothing on standard error, and Swift does not promise a trap at all (SE-0433). Detect the re-entry yourself: remember which thread is initializing, and precondition that it is not the caller.")
            } else if !(output.contains("Precondition failed") || output.contains("Fatal error")) || output.contains("Unexpectedly found nil") {
                Issue.record("The re-entry crashed the process (\(IsolatedCheck.signalName(signal))) without a precondition failure's message: \(Self.lastLine(of: output)). A sync onto the box's own serial queue traps inside libdispatch, and a stack overflow is a crash, not a diagnosis. Remember which thread is initializing, and call precondition(…, \"…\") when that thread asks again.")
            }
        case .exitCode(IsolatedCheck.finishedCode):
            break  // returned or hung: the child's own issues say which.
        default:
            let message = IsolatedCheck.message(for: ending.exitStatus, in: Self.reentryPlace, crashHint: "") ?? "The re-entry did not stop with a precondition failure."
            Issue.record(Comment(rawValue: message))
        }
    }

    static func lastLine(of output: String) -> String {
        let lines = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard let line = lines.first(where: { !$0.hasPrefix(readyMarker) }) else { return "standard error said nothing" }
        return "standard error said \"\(line.prefix(160))\""
    }

    static func reenter() {
        let ordinary = Lazy<Int> { 42 }
        let returned = Locked<Int?>(nil)
        guard Patience.call("reading an ordinary Lazy", in: reentryPlace, { returned.withLock { $0 = try? ordinary.value } }) else { return }
        guard returned.current == 42 else {
            Issue.record("Lazy { 42 }.value returned \(returned.current.map(String.init) ?? "nothing (it threw)"), expected 42.")
            return
        }
        FileHandle.standardError.write(Data((readyMarker + "\n").utf8))
        let calls = Locked(0)
        let holder = Weak<Lazy<Int>>()
        let box = Lazy<Int> {
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            // Only the first call reads its own box, so that a box with no lock at all returns
            // instead of recursing for ever.
            if call == 1, let box = holder.value { return (try? box.value) ?? -1 }
            return call
        }
        holder.value = box
        let finished = Patience.call("value, whose initializer reads value", in: reentryPlace,
            hint: "The initializer asked its own box for the value, on the thread that is computing it, and waits for itself: a non-recursive lock taken twice, or a condition waiting for an initialization that cannot end. Detect it: remember which thread is initializing, and precondition that it is not the caller.",
            { _ = try? box.value })
        if finished {
            Issue.record("The initializer read its own box, and value returned (the initializer ran \(calls.current) times): the re-entrant read got a value that did not exist yet. Remember which thread is initializing, and stop with precondition(…) when that thread asks again.")
        }
    }

    // MARK: Nesting

    static let nestingPlace = "one box's initializer reading another box"

    @Test("One box's initializer may read another box, from 4 threads at once: no deadlock, no false re-entry, each initializer once")
    func boxesMayNest() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: Patience.watchdog, in: LazyTests.nestingPlace)
            LazyTests.nest()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.nestingPlace, crashHint: "Reading another box from an initializer is not re-entry: detect re-entry per box (this box, this thread), not with one lock or one flag shared by every box.")
    }

    static func nest() {
        let runs = Locked((config: 0, client: 0))
        let config = Lazy<Token> {
            runs.withLock { $0.config += 1 }
            usleep(500)
            return Token(1)
        }
        let client = Lazy<Token> {
            runs.withLock { $0.client += 1 }
            let settings = try config.value
            return Token(settings.serial + 1)
        }
        let values = Locked(Set<Int>())
        let returned = Patience.call("4 threads reading a box whose initializer reads another", in: nestingPlace,
            hint: "One lock shared by every box (a static lock) is taken by the outer box's initializer and waited for by the inner one: make the lock (and the re-entry check) per box.", {
                Patience.gang(4, in: nestingPlace) { index in
                    let box = index == 3 ? config : client
                    if let token = try? box.value { values.withLock { _ = $0.insert(token.serial) } }
                }
            })
        guard returned else { return }
        let seen = runs.current
        #expect(seen.client == 1 && seen.config == 1, "With one box's initializer reading another, from 4 threads at once, the outer initializer ran \(seen.client) times and the inner one \(seen.config) times: expected once each.")
        #expect(values.current == [1, 2], "The readers got \(values.current.sorted()), expected the inner box's value 1 and the outer box's 2.")
    }
}
