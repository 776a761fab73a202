import Deadlocks
import Dispatch
import Foundation
import KataTestSupport
import Testing

/// audit holds every account's lock while its body runs; the body may call back into the bank on
/// the same thread, and other threads wait.
@Suite("Audit", .exitIsAFailure)
struct AuditTests {
    static let reentryPlace = "audit whose body calls back into the bank"
    static let reentryHint = "audit holds every account's lock while its body runs, and the body called back into the bank on the same thread: a non-recursive lock (NSLock) taken again by the thread that holds it waits for itself. Use NSRecursiveLock, or let calls from the auditing thread skip the locks it already holds."

    @Test("audit's body can call balance, transfer and total on the same thread, and sees their effects")
    func auditCanCallBack() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: AuditTests.reentryPlace)
            Watched.onOneThread(in: AuditTests.reentryPlace) { steps in AuditTests.callBackFromAudit(steps) }
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: Self.reentryPlace,
            crashHint: "A crash here usually means a lock was unlocked more often than it was locked, or by a thread that does not hold it.")
    }

    struct Inside {
        var balances: [Int] = []
        var balanceOf0 = -1
        var moved = false
        var total = -1
        var balanceOf1 = -1
    }

    static func callBackFromAudit(_ steps: Steps) {
        let bank = Bank(balances: [40, 10, 25])
        let inside = Locked(Inside())
        steps.enter("audit")
        let answer = bank.audit { balances -> Int in
            inside.withLock { $0.balances = balances }
            steps.enter("balance(of: 0) inside audit's body", ifStuck: reentryHint)
            let first = bank.balance(of: 0)
            steps.enter("transfer(from: 0, to: 1, amount: 15) inside audit's body", ifStuck: reentryHint)
            let moved = bank.transfer(from: 0, to: 1, amount: 15)
            steps.enter("total() inside audit's body", ifStuck: reentryHint)
            let total = bank.total()
            steps.enter("balance(of: 1) inside audit's body", ifStuck: reentryHint)
            let second = bank.balance(of: 1)
            inside.withLock { $0 = Inside(balances: balances, balanceOf0: first, moved: moved, total: total, balanceOf1: second) }
            steps.enter("audit returning", ifStuck: "audit's body returned, but audit did not.")
            return 99
        }
        steps.enter(
            "balance(of:) after audit returned",
            ifStuck: "audit returned but left a lock taken: unlock every account as many times as it was locked when the body returns (defer).")
        let after = (0..<3).map { bank.balance(of: $0) }
        let seen = inside.current
        #expect(answer == 99, "audit should return what its body returns (99), got \(answer).")
        #expect(seen.balances == [40, 10, 25], "audit should hand its body every balance: expected [40, 10, 25], got \(seen.balances).")
        #expect(
            seen.balanceOf0 == 40 && seen.moved && seen.total == 75 && seen.balanceOf1 == 25,
            "Inside audit's body, on the auditing thread: balance(of: 0) should be 40 (got \(seen.balanceOf0)), transfer(from: 0, to: 1, amount: 15) should succeed (got \(seen.moved)), total() should be 75 (got \(seen.total)), and then balance(of: 1) should be 25 (got \(seen.balanceOf1)).")
        #expect(after == [25, 25, 25], "After audit returned, the transfer made inside its body should stay: expected [25, 25, 25], got \(after).")
    }

    static let exclusionPlace = "a transfer from another thread while audit's body runs"
    /// How long audit's body stays inside once the other thread has called transfer: a transfer
    /// that does not wait for audit returns within microseconds.
    static let lingerSeconds = 0.25

    @Test("A transfer from another thread waits until audit's body has returned")
    func auditExcludesOtherThreads() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: AuditTests.exclusionPlace)
            AuditTests.transferDuringAudit()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.exclusionPlace, crashHint: "A crash here usually means a transfer changed a balance that audit was reading.")
    }

    struct Observed {
        var auditSaw: [Int] = []
        var bodyRan = false
        var calledTransfer = false
        var returnedDuringAudit = false
        var transferResult = false
    }

    static func transferDuringAudit() {
        let bank = Bank(balances: [30, 30])
        let observed = Locked(Observed())
        let insideAudit = DispatchSemaphore(value: 0)
        let transferCalled = DispatchSemaphore(value: 0)
        let transferReturned = DispatchSemaphore(value: 0)
        let hint = "audit must release every lock when its body returns (defer), and a transfer waiting for audit must then get in."
        let finished = Watched.gang(2, in: exclusionPlace, hint: hint) { index, steps in
            if index == 0 {
                steps.enter("audit")
                bank.audit { balances in
                    observed.withLock {
                        $0.auditSaw = balances
                        $0.bodyRan = true
                    }
                    insideAudit.signal()
                    // Decide by events: wait until the other thread is calling transfer, then
                    // give the transfer a chance to (wrongly) return while this body is inside.
                    guard transferCalled.wait(timeout: .now() + Deadline.promptSeconds) == .success else { return }
                    let returned = transferReturned.wait(timeout: .now() + lingerSeconds) == .success
                    if returned { transferReturned.signal() }
                    observed.withLock { $0.returnedDuringAudit = returned }
                }
                steps.tick()
            } else {
                steps.waitFor("audit's body starting")
                guard insideAudit.wait(timeout: .now() + Deadline.promptSeconds) == .success else { return }
                observed.withLock { $0.calledTransfer = true }
                steps.enter("transfer(from: 0, to: 1, amount: 10) after audit's body started")
                transferCalled.signal()
                let moved = bank.transfer(from: 0, to: 1, amount: 10)
                transferReturned.signal()
                observed.withLock { $0.transferResult = moved }
                steps.tick()
            }
        }
        let seen = observed.current
        guard seen.bodyRan else {
            Issue.record("audit never ran its body (waited \(Int(Deadline.promptSeconds)) s).")
            return
        }
        #expect(seen.auditSaw == [30, 30], "audit should hand its body every balance: expected [30, 30], got \(seen.auditSaw).")
        #expect(
            !seen.returnedDuringAudit,
            "transfer(from: 0, to: 1, amount: 10) on another thread returned while audit's body was still running: audit must hold every account's lock until its body returns, so that other threads wait.")
        guard finished else { return }
        #expect(seen.transferResult, "The transfer from another thread should succeed once audit has returned (account 0 held 30).")
        let after = [bank.balance(of: 0), bank.balance(of: 1)]
        #expect(after == [20, 40], "After audit returned and the transfer went through, the balances should be [20, 40], got \(after).")
    }
}
