import Deadlocks
import Foundation
import KataTestSupport
import Testing

/// The bank's plain semantics, one call at a time. Even on one thread a lock can deadlock (a
/// non-recursive lock taken twice, a lock left taken on an early return), so these checks too
/// run isolated, with the calls on a watched thread.
@Suite("Bank on one thread", .exitIsAFailure)
struct BankBasicsTests {
    static let place = "the bank on one thread"

    @Test("Balances, transfers, refused transfers, from == to, withAccounts, total and audit on one thread")
    func bankOnOneThread() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: BankBasicsTests.place)
            Watched.onOneThread(in: BankBasicsTests.place) { steps in BankBasicsTests.oneCallAtATime(steps) }
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: Self.place,
            crashHint: "A crash here usually means an account index out of range, withAccounts called with the same account twice (transfer(from: 2, to: 2) must return before locking), or a lock unlocked more often than it was locked.")
    }

    static let leftLocked = "The previous call returned but left a lock taken: unlock on every path out of a method, including early returns (use defer right after lock())."

    static func balances(_ bank: Bank, _ steps: Steps, after call: String) -> [Int] {
        steps.enter("balance(of:) after \(call)", ifStuck: leftLocked)
        return (0..<4).map { bank.balance(of: $0) }
    }

    static func oneCallAtATime(_ steps: Steps) {
        steps.enter("Bank(balances: [50, 20, 0, 7])")
        let bank = Bank(balances: [50, 20, 0, 7])
        steps.enter("accountCount")
        let count = bank.accountCount
        #expect(count == 4, "accountCount should be the number of balances given to init (4), got \(count).")
        let initial = balances(bank, steps, after: "init")
        #expect(initial == [50, 20, 0, 7], "balance(of:) should return the balances given to init: expected [50, 20, 0, 7], got \(initial).")

        steps.enter("transfer(from: 0, to: 2, amount: 30)")
        let moved = bank.transfer(from: 0, to: 2, amount: 30)
        #expect(moved, "transfer(from: 0, to: 2, amount: 30) should return true: account 0 holds 50.")
        let afterMove = balances(bank, steps, after: "a transfer")
        #expect(afterMove == [20, 20, 30, 7], "After transfer(from: 0, to: 2, amount: 30) the balances should be [20, 20, 30, 7], got \(afterMove).")

        steps.enter("transfer(from: 1, to: 3, amount: 21)")
        let refused = bank.transfer(from: 1, to: 3, amount: 21)
        #expect(!refused, "transfer(from: 1, to: 3, amount: 21) should return false: account 1 holds only 20.")
        let afterRefusal = balances(bank, steps, after: "a refused transfer")
        #expect(afterRefusal == [20, 20, 30, 7], "A refused transfer must change nothing: expected [20, 20, 30, 7], got \(afterRefusal).")

        steps.enter("transfer(from: 1, to: 3, amount: 20)")
        let exact = bank.transfer(from: 1, to: 3, amount: 20)
        #expect(exact, "transfer(from: 1, to: 3, amount: 20) should return true: account 1 holds exactly 20.")

        steps.enter(
            "transfer(from: 2, to: 2, amount: 5)",
            ifStuck: "A transfer from an account to itself took that account's lock twice on one thread: a non-recursive lock waits for itself. from == to returns true before taking any lock.")
        let toItself = bank.transfer(from: 2, to: 2, amount: 5)
        #expect(toItself, "transfer(from: 2, to: 2, amount: 5) should return true and change nothing (from == to).")
        let afterSelf = balances(bank, steps, after: "transfer(from: 2, to: 2)")
        #expect(afterSelf == [20, 0, 30, 27], "After the transfers the balances should be [20, 0, 30, 27], got \(afterSelf).")

        steps.enter("withAccounts(3, 0)")
        let seen = bank.withAccounts(3, 0) { first, second -> [Int] in
            defer {
                first -= 7
                second += 7
            }
            return [first, second]
        }
        #expect(seen == [27, 20], "withAccounts(3, 0) should hand its body account 3's balance first and account 0's second (27, 20), whatever order it locks them in; it handed \(seen).")
        let afterBody = balances(bank, steps, after: "withAccounts")
        #expect(afterBody == [27, 0, 30, 20], "withAccounts should keep what its body left in both balances: expected [27, 0, 30, 20], got \(afterBody).")

        steps.enter("total()")
        let total = bank.total()
        #expect(total == 77, "total() should be the sum of all balances (77), got \(total).")

        steps.enter("audit")
        let audited = bank.audit { balances in balances }
        #expect(audited == [27, 0, 30, 20], "audit should hand its body every balance, in account order: expected [27, 0, 30, 20], got \(audited).")
        let afterAudit = balances(bank, steps, after: "audit")
        #expect(afterAudit == [27, 0, 30, 20], "audit alone should change nothing: expected [27, 0, 30, 20], got \(afterAudit).")
    }

    static let readyMarker = "[withAccounts(0, 1) worked]"

    @Test("withAccounts(a, a) stops with a precondition failure instead of running its body or hanging")
    func sameAccountTwiceIsAPreconditionFailure() async {
        let ending = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent], IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "withAccounts(1, 1)")
            BankBasicsTests.lockOneAccountTwice()
            IsolatedCheck.finish()
        }
        guard let ending else { return }
        switch ending.exitStatus {
        case .signal:
            // What a failed precondition raises, provided withAccounts(0, 1) worked before it.
            let output = String(decoding: ending.standardErrorContent, as: UTF8.self)
            if !output.contains(Self.readyMarker) {
                Issue.record("The process crashed before withAccounts(1, 1) was called: withAccounts(0, 1) on Bank(balances: [5, 6]) should run its body with 5 and 6, not crash. Only a == b is a precondition failure.")
            }
        case .exitCode(IsolatedCheck.finishedCode):
            break  // withAccounts(1, 1) returned or hung: the child's own issues say so.
        default:
            let message = IsolatedCheck.message(for: ending.exitStatus, in: "withAccounts(1, 1)", crashHint: "") ?? "withAccounts(1, 1) did not stop with a precondition failure."
            Issue.record(Comment(rawValue: message))
        }
    }

    static func lockOneAccountTwice() {
        let bank = Bank(balances: [5, 6])
        let ran = Locked(false)
        let returned = Watched.onOneThread(in: "withAccounts(1, 1)") { steps in
            steps.enter("withAccounts(0, 1)")
            let seen = bank.withAccounts(0, 1) { [$0, $1] }
            #expect(seen == [5, 6], "withAccounts(0, 1) on Bank(balances: [5, 6]) should hand its body 5 and 6, it handed \(seen).")
            if seen == [5, 6] { FileHandle.standardError.write(Data((BankBasicsTests.readyMarker + "\n").utf8)) }
            steps.enter(
                "withAccounts(1, 1)",
                ifStuck: "withAccounts(1, 1) took account 1's lock twice on one thread, and a non-recursive lock waits for itself. Check precondition(a != b) before taking any lock.")
            bank.withAccounts(1, 1) { _, _ in ran.withLock { $0 = true } }
        }
        if returned {
            Issue.record(
                "withAccounts(1, 1) returned\(ran.current ? " after running its body" : ""): passing the same account twice must be a precondition failure (precondition(a != b)). One balance cannot be two inout values, and its lock cannot be taken twice.")
        }
    }
}
