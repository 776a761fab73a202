import Deadlocks
import Dispatch
import Foundation
import KataTestSupport
import Testing

/// Per-account locks: transfers in opposite directions must not deadlock, transfers on disjoint
/// pairs must run together, pairs that share an account must not, and total() must see one instant.
@Suite("Lock ordering", .exitIsAFailure)
struct LockOrderTests {
    static let orderHint = "Threads that take the same locks in different orders (one locks 0 then 1, another 1 then 0) can each hold what the other waits for. Take the locks in one global order: the lower account number first, whatever the direction of the transfer."

    // MARK: Opposite transfers

    static let oppositeThreads = 8
    static let oppositeRounds = 6_000
    static let oppositePlace = "transfers between accounts 0 and 1 in both directions"

    @Test("Transfers 0 → 1 and 1 → 0 from 8 threads at once all finish, and no money appears or disappears")
    func oppositeTransfersFinish() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: LockOrderTests.oppositePlace)
            LockOrderTests.transferBothWays()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: Self.oppositePlace,
            crashHint: "A crash here usually means two threads changed the same balance at once: lock both accounts around the check and the move.")
    }

    static let crossingRounds = 3

    static func transferBothWays() {
        let start = 30_000
        let bank = Bank(balances: [start, start, start])
        let refused = Locked(0)
        // First the crossing, arranged so that it does not depend on threads happening to run in
        // parallel. While withAccounts(0, 2)'s body holds account 0, two threads call
        // transfer(from: 0, to: 1) and queue up for account 0; then one thread calls
        // transfer(from: 1, to: 0). Locking `from` first, that one takes account 1 and queues for
        // account 0 behind the other two. When the body returns, the first in the queue gets
        // account 0 and waits for account 1, which the last one holds while it waits for account
        // 0: a cycle. With a global order, every transfer waits for account 0 first, holding
        // nothing, and they go through one after another.
        for round in 1...crossingRounds {
            let holderIn = DispatchSemaphore(value: 0)
            let firstQueued = DispatchSemaphore(value: 0)
            let lastGo = DispatchSemaphore(value: 0)
            let lastQueued = DispatchSemaphore(value: 0)
            let crossed = Watched.gang(4, in: oppositePlace + " (the crossing, round \(round))", hint: orderHint) { index, steps in
                switch index {
                case 0:
                    steps.enter("withAccounts(0, 2), holding account 0 while transfers queue up")
                    bank.withAccounts(0, 2) { _, _ in
                        holderIn.signal()
                        holderIn.signal()
                        for _ in 1...2 { _ = firstQueued.wait(timeout: .now() + Deadline.promptSeconds) }
                        Thread.sleep(forTimeInterval: 0.01)  // they reach lock() and wait there
                        lastGo.signal()
                        _ = lastQueued.wait(timeout: .now() + Deadline.promptSeconds)
                        Thread.sleep(forTimeInterval: 0.01)
                    }
                case 1, 2:
                    steps.waitFor("withAccounts(0, 2)'s body starting")
                    guard holderIn.wait(timeout: .now() + Deadline.promptSeconds) == .success else { return }
                    firstQueued.signal()
                    steps.enter("transfer(from: 0, to: 1, amount: 1) queued behind withAccounts(0, 2)")
                    if !bank.transfer(from: 0, to: 1, amount: 1) { refused.withLock { $0 += 1 } }
                default:
                    steps.waitFor("two transfers from 0 to 1 queuing up")
                    guard lastGo.wait(timeout: .now() + Deadline.promptSeconds) == .success else { return }
                    lastQueued.signal()
                    steps.enter("transfer(from: 1, to: 0, amount: 1) queued behind them")
                    if !bank.transfer(from: 1, to: 0, amount: 1) { refused.withLock { $0 += 1 } }
                }
                steps.tick()
            }
            guard crossed else { return }
        }
        let finished = Watched.gang(oppositeThreads, in: oppositePlace, hint: orderHint) { index, steps in
            // Even threads move money 0 → 1, odd ones 1 → 0: every pair of neighbours takes the
            // same two locks in opposite directions, thousands of times.
            let (from, to) = index.isMultiple(of: 2) ? (0, 1) : (1, 0)
            var refusedHere = 0
            for _ in 0..<oppositeRounds {
                if !bank.transfer(from: from, to: to, amount: 1) { refusedHere += 1 }
                steps.tick()
            }
            refused.withLock { $0 += refusedHere }
        }
        guard finished else { return }
        let made = oppositeThreads * oppositeRounds + 3 * crossingRounds
        #expect(
            refused.current == 0,
            "transfer returned false \(refused.current) times out of \(made), although both accounts always held more than the 1 being moved (each starts with \(start)). transfer returns false only when `from` holds less than `amount`.")
        // The crossing moved 1 unit from 0 to 1 once more than back in each round.
        let balances = [bank.balance(of: 0), bank.balance(of: 1)]
        let expected = [start - crossingRounds, start + crossingRounds]
        #expect(
            balances == expected,
            "After \(made) transfers of 1 between accounts 0 and 1, they should hold \(expected); they hold \(balances) (sum \(balances.reduce(0, +)), expected \(2 * start)). \(balances.reduce(0, +) == 2 * start ? "" : "Money appeared or disappeared: two threads changed a balance at once. ")Lock both accounts around the check and the move.")
    }

    // MARK: Disjoint pairs run together

    static let meetingSeconds = 2.0
    static let disjointPlace = "withAccounts on the disjoint pairs (0, 1) and (3, 2)"

    @Test("withAccounts on two disjoint pairs can be inside at the same time")
    func disjointPairsRunTogether() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: LockOrderTests.disjointPlace)
            LockOrderTests.disjointPairsMeet()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.disjointPlace, crashHint: "withAccounts on accounts (0, 1) and (3, 2) of a bank with 4 accounts should simply run both bodies.")
    }

    static func disjointPairsMeet() {
        let bank = Bank(balances: [10, 20, 30, 40])
        let meeting = Rendezvous(parties: 2, seconds: meetingSeconds)
        let met = Locked([Bool]())
        let seen = Locked([[Int]](repeating: [], count: 2))
        Watched.gang(2, in: disjointPlace, hint: "A body waiting for its partner should never block withAccounts on other accounts.") { index, steps in
            let (a, b) = index == 0 ? (0, 1) : (3, 2)
            steps.enter("withAccounts(\(a), \(b))")
            bank.withAccounts(a, b) { first, second in
                seen.withLock { $0[index] = [first, second] }
                let together = meeting.arriveAndWait()
                met.withLock { $0.append(together) }
            }
            steps.tick()
        }
        #expect(
            seen.current == [[10, 20], [40, 30]],
            "withAccounts should hand its body the two accounts' balances in the order named: (0, 1) → [10, 20] and (3, 2) → [40, 30]; the bodies saw \(seen.current).")
        #expect(
            met.current.count == 2 && met.current.allSatisfy { $0 },
            "withAccounts(0, 1) and withAccounts(3, 2) were never inside their bodies at the same time (waited \(Int(meetingSeconds)) s for them to meet). They share no account, so nothing should keep them apart: one lock for the whole bank makes every transfer wait for every other. Give each account its own lock and take only the two that are involved.")
    }

    // MARK: Pairs that share an account are exclusive

    static let sharingThreads = 8
    static let sharingRounds = 300
    static let sharingAccounts = 4
    static let sharingPlace = "withAccounts on the pairs (0, 1), (1, 2), (2, 3), (3, 0) and their reverses"

    @Test("withAccounts bodies on pairs that share an account are never inside at the same time")
    func sharedAccountsExclude() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: LockOrderTests.sharingPlace)
            LockOrderTests.pairsAroundACircle()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: Self.sharingPlace,
            crashHint: "A crash here usually means two bodies changed one balance at once: withAccounts must hold both accounts' own locks while its body runs.")
    }

    struct Occupancy {
        var inside = [Int](repeating: 0, count: LockOrderTests.sharingAccounts)
        var clashes = 0
        var example = ""
    }

    static func pairsAroundACircle() {
        let start = 1_000
        let bank = Bank(balances: Array(repeating: start, count: sharingAccounts))
        // First, by events: while withAccounts(0, 1)'s body is inside, withAccounts(1, 2) must
        // wait for account 1.
        let window = IntruderWindow()
        let windowDone = Watched.gang(2, in: sharingPlace, hint: "withAccounts(1, 2) should wait for account 1 only until withAccounts(0, 1) returns.") { index, steps in
            if index == 0 {
                steps.enter("withAccounts(0, 1)")
                bank.withAccounts(0, 1) { _, _ in window.hold() }
            } else {
                steps.waitFor("withAccounts(0, 1)'s body starting")
                guard window.waitForHolder() else { return }
                steps.enter("withAccounts(1, 2) while withAccounts(0, 1)'s body runs")
                bank.withAccounts(1, 2) { _, _ in window.enter("withAccounts(1, 2)'s body") }
            }
            steps.tick()
        }
        guard windowDone else { return }
        #expect(
            window.intrusions.isEmpty,
            "withAccounts(1, 2)'s body ran while withAccounts(0, 1)'s body was still inside: both use account 1. withAccounts must hold the lock of each of its two accounts; a lock per pair of accounts does not exclude the other pairs that share one of them.")
        let occupancy = Locked(Occupancy())
        let circleHint = "Threads lock (0, 1), (1, 2), (2, 3), (3, 0) and the reverse pairs: taking the first-named account first lets them form a cycle in which each holds one account and waits for the next. Take the locks in one global order: the lower account number first."
        let finished = Watched.gang(sharingThreads, in: sharingPlace, hint: circleHint) { index, steps in
            // Threads 0–3 go around the circle, threads 4–7 around it the other way.
            let k = index % sharingAccounts
            let (a, b) = index < sharingAccounts ? (k, (k + 1) % sharingAccounts) : ((k + 1) % sharingAccounts, k)
            for _ in 0..<sharingRounds {
                bank.withAccounts(a, b) { first, second in
                    occupancy.withLock { state in
                        for account in [a, b] where state.inside[account] > 0 {
                            state.clashes += 1
                            if state.example.isEmpty { state.example = "account \(account) was held by another body when withAccounts(\(a), \(b))'s body started" }
                        }
                        state.inside[a] += 1
                        state.inside[b] += 1
                    }
                    // A read-modify-write of both balances, with a pause in the middle that
                    // widens the window in which an intruder would be seen.
                    let (x, y) = (first, second)
                    spin(microseconds: 20)
                    first = x - 1
                    second = y + 1
                    occupancy.withLock { state in
                        state.inside[a] -= 1
                        state.inside[b] -= 1
                    }
                }
                steps.tick()
            }
        }
        guard finished else { return }
        let seen = occupancy.current
        #expect(
            seen.clashes == 0,
            "Bodies of withAccounts on pairs that share an account were inside at the same time \(seen.clashes) times (\(seen.example)). withAccounts must hold the lock of each of its two accounts: a lock per pair of accounts does not exclude the other pairs that share one of them.")
        let balances = (0..<sharingAccounts).map { bank.balance(of: $0) }
        let expected = Array(repeating: start, count: sharingAccounts)
        #expect(
            balances == expected,
            "Each pair moved 1 unit \(sharingRounds) times each way inside withAccounts, so every balance should be back at \(start); they are \(balances). \(balances.allSatisfy { $0 == 0 } ? "withAccounts should hand its body the stored balances and keep what it leaves there." : "Changes made inside withAccounts were lost: two bodies changed one balance at once.")")
    }

    // MARK: total() sees one instant

    static let movers = 6
    static let moves = 2_000
    static let totalAccounts = 8
    static let totalPlace = "total() while 6 threads transfer"
    static let arrangedRounds = 2

    @Test("total() while transfers run always equals the money in the bank")
    func totalIsConsistent() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: LockOrderTests.totalPlace)
            LockOrderTests.totalsDuringTransfers()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.totalPlace, crashHint: "A crash here usually means total() read balances that transfers were changing without holding their locks.")
    }

    struct Totals {
        var count = 0
        var wrongCount = 0
        var wrong: [Int] = []
    }

    static func totalsDuringTransfers() {
        let perAccount = 500
        let money = perAccount * totalAccounts
        let bank = Bank(balances: Array(repeating: perAccount, count: totalAccounts))
        let moversDone = Locked(0)
        let totals = Locked(Totals())
        let hint = "total() must take the accounts' locks in the same global order as the transfers (lowest number first); any other order can close a cycle with a transfer."
        // First, by events (so that it does not depend on threads happening to run in parallel):
        // total() is called while withAccounts(5, 6)'s body is halfway through moving 50 from 5
        // to 6, and transfer(from: 0, to: 7) is called while total() waits for account 5. A
        // total() that holds every lock at once waits for the body and keeps the transfer out.
        for round in 1...arrangedRounds {
            let holderIn = DispatchSemaphore(value: 0)
            let totalCalled = DispatchSemaphore(value: 0)
            let totalReturned = DispatchSemaphore(value: 0)
            let moverGo = DispatchSemaphore(value: 0)
            let moverReturned = DispatchSemaphore(value: 0)
            let arranged = Watched.gang(3, in: totalPlace + " (arranged, round \(round))", hint: hint) { index, steps in
                switch index {
                case 0:
                    steps.enter("withAccounts(5, 6), moving 50 from account 5 to account 6 in two steps")
                    bank.withAccounts(5, 6) { first, second in
                        first -= 50
                        holderIn.signal()
                        _ = totalCalled.wait(timeout: .now() + Deadline.promptSeconds)
                        // A total() that does not wait for this body returns now.
                        if totalReturned.wait(timeout: .now() + 0.03) == .success { totalReturned.signal() }
                        moverGo.signal()
                        _ = moverReturned.wait(timeout: .now() + 0.1)
                        second += 50
                    }
                case 1:
                    steps.waitFor("withAccounts(5, 6)'s body starting")
                    guard holderIn.wait(timeout: .now() + Deadline.promptSeconds) == .success else { return }
                    totalCalled.signal()
                    steps.enter("total() while withAccounts(5, 6)'s body runs")
                    let total = bank.total()
                    totalReturned.signal()
                    totals.withLock {
                        $0.count += 1
                        if total != money {
                            $0.wrongCount += 1
                            $0.wrong.append(total)
                        }
                    }
                default:
                    steps.waitFor("total() being called")
                    guard moverGo.wait(timeout: .now() + Deadline.promptSeconds) == .success else { return }
                    steps.enter("transfer(from: 0, to: 7, amount: 100) while total() runs")
                    bank.transfer(from: 0, to: 7, amount: 100)
                    moverReturned.signal()
                }
                steps.tick()
            }
            guard arranged else { return }
        }
        let finished = Watched.gang(movers + 2, in: totalPlace, hint: hint) { index, steps in
            var random = SystemRandomNumberGenerator()
            if index < movers {
                defer { moversDone.withLock { $0 += 1 } }
                for _ in 0..<moves {
                    let from = Int.random(in: 0..<totalAccounts, using: &random)
                    let to = (from + Int.random(in: 1..<totalAccounts, using: &random)) % totalAccounts
                    bank.transfer(from: from, to: to, amount: Int.random(in: 1...40, using: &random))
                    steps.tick()
                }
            } else {
                // Observers keep asking until the movers are done, so every total overlaps transfers.
                for _ in 0..<20_000 {
                    if moversDone.current == movers { break }
                    let total = bank.total()
                    totals.withLock {
                        $0.count += 1
                        if total != money {
                            $0.wrongCount += 1
                            if $0.wrong.count < 5 { $0.wrong.append(total) }
                        }
                    }
                    steps.tick()
                }
            }
        }
        guard finished else { return }
        let seen = totals.current
        #expect(
            seen.wrong.isEmpty,
            "total() was wrong in \(seen.wrongCount) of \(seen.count) calls (first: \(seen.wrong.map(String.init).joined(separator: ", "))) while the bank always holds \(money). \(seen.wrong.allSatisfy { $0 == 0 } ? "total() should add up the stored balances." : "total() must see one instant: hold every account's lock at once while adding up. Summing one account at a time, each under its own lock in turn, misses or double-counts money that a transfer moves between an account already counted and one not yet counted (and a transfer must hold both accounts' own locks).")")
        let balances = (0..<totalAccounts).map { bank.balance(of: $0) }
        #expect(
            balances.reduce(0, +) == money && balances.allSatisfy { $0 >= 0 },
            "After the transfers the balances \(balances) should add up to \(money) with none negative: transfers must check and move under both accounts' locks.")
    }
}
