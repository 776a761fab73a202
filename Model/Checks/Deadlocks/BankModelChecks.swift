#if KATA_MODEL
import KataModel

/// The systematic checks of Deadlocks: the Bank's transfers, totals and audits beside each other,
/// and SerialWorker's nested sync. (New checks go at the end: `ExerciseModelTests` names them by
/// position.)
public let modelChecks: [ModelCheck] = [
    ModelCheck("opposite transfers", zh: "相反方向的两笔转账", stress: ["oppositeTransfersFinish", "randomStressConservesMoney"]) {
        let bank = Bank(balances: [100, 100])
        let there = Model.spawn("transfer 0 → 1") { bank.transfer(from: 0, to: 1, amount: 10) }
        let back = Model.spawn("transfer 1 → 0") { bank.transfer(from: 1, to: 0, amount: 20) }
        Model.join(there, back)
        let total = bank.total()
        Model.check(
            total == 200, "after two transfers the bank holds \(total), not 200",
            zh: "两次转账之后银行总额是 \(total)，而不是 200")
    },
    ModelCheck("nested sync on a worker", zh: "在 worker 上嵌套 sync", stress: ["nestedSyncRunsInline", "workerRunsSerially"]) {
        let worker = SerialWorker(label: "worker")
        let done = Results()
        // Each body records whether it ran on the worker: a sync that runs every body inline,
        // on the caller's thread, never deadlocks but is no worker.
        let caller = Model.spawn("caller") {
            worker.sync { worker.sync { done.values.append(worker.isCurrent ? 1 : -1) } }
        }
        let submitter = Model.spawn("submitter") {
            worker.async { worker.sync { done.values.append(worker.isCurrent ? 2 : -2) } }
        }
        Model.join(caller, submitter)
        Model.joinAll()
        Model.check(
            done.values.sorted() == [1, 2],
            "nested sync calls on one SerialWorker recorded \(done.values), not [1, 2] (a negative number: the body ran, but isCurrent said it was not on the worker)",
            zh: "同一个 SerialWorker 上的嵌套 sync 调用记录了 \(done.values)，而不是 [1, 2]（负数：代码块运行了，但 isCurrent 表示它不在这个 worker 上）")
    },
    ModelCheck("audit beside a transfer", zh: "audit 与一笔转账同时进行", stress: ["auditExcludesOtherThreads", "randomStressConservesMoney"]) {
        let bank = Bank(balances: [50, 50, 50])
        let sums = Results()
        let auditor = Model.spawn("auditor") { sums.values.append(bank.audit { $0.reduce(0, +) }) }
        let mover = Model.spawn("transfer 2 → 0") { bank.transfer(from: 2, to: 0, amount: 5) }
        Model.join(auditor, mover)
        Model.check(
            sums.values == [150], "audit summed \(sums.values) beside a transfer, not [150]",
            zh: "转账进行时 audit 的总和是 \(sums.values)，而不是 [150]")
    },
    ModelCheck("total beside a transfer", zh: "total() 与一笔转账同时进行", stress: ["totalIsConsistent", "randomStressConservesMoney"]) {
        let bank = Bank(balances: [50, 50, 50])
        let totals = Results()
        let counter = Model.spawn("total") { totals.values.append(bank.total()) }
        let mover = Model.spawn("transfer 2 → 0") { bank.transfer(from: 2, to: 0, amount: 5) }
        Model.join(counter, mover)
        Model.check(
            totals.values == [150], "total() beside a transfer returned \(totals.values), not [150]: it saw the transfer half done",
            zh: "转账进行时 total() 返回 \(totals.values)，而不是 [150]：它看到了只做了一半的转账")
    },
    ModelCheck("audit keeps others out", zh: "audit 运行时其他线程进不来", stress: ["auditExcludesOtherThreads"]) {
        let bank = Bank(balances: [50, 50, 50])
        let seen = Seen()
        let auditor = Model.spawn("auditor") {
            bank.audit { balances in
                seen.before = balances
                Model.point("inside audit's body")
                seen.after = (0..<3).map { bank.balance(of: $0) }
            }
        }
        let mover = Model.spawn("transfer 2 → 0") { bank.transfer(from: 2, to: 0, amount: 5) }
        Model.join(auditor, mover)
        Model.check(
            seen.before == seen.after,
            "audit's body was handed \(seen.before), and later in the same body the balances were \(seen.after): a transfer from another thread ran while the body did",
            zh: "audit 的代码块拿到的余额是 \(seen.before)，同一个代码块稍后读到的余额是 \(seen.after)：代码块运行期间，另一个线程的转账执行了")
    },
    ModelCheck("pairs that share an account", zh: "共享一个账户的两组账户", stress: ["sharedAccountsExclude"]) {
        let bank = Bank(balances: [10, 10, 10])
        let inside = Inside()
        let pairs = [(0, 1), (1, 2)].map { a, b in
            Model.spawn("withAccounts(\(a), \(b))") {
                bank.withAccounts(a, b) { _, _ in
                    inside.enter()
                    Model.point("inside withAccounts(\(a), \(b))")
                    inside.leave()
                }
            }
        }
        Model.join(pairs)
        Model.check(
            inside.most == 1,
            "the bodies of withAccounts(0, 1) and withAccounts(1, 2) were inside at the same time, and both hold account 1",
            zh: "withAccounts(0, 1) 和 withAccounts(1, 2) 的代码块同时在运行，而它们都持有账户 1")
    },
    ModelCheck("disjoint pairs run together", zh: "互不相交的两组账户可以同时进行", stress: ["disjointPairsRunTogether"]) {
        // The body on (0, 1) waits until the body on (2, 3) has run: a bank that lets only one
        // body in at a time deadlocks here (the deadlock is the failure, with who holds what).
        let bank = Bank(balances: [10, 10, 10, 10])
        let otherPairInside = DispatchSemaphore(value: 0)
        let waiting = Model.spawn("withAccounts(0, 1)") { bank.withAccounts(0, 1) { _, _ in otherPairInside.wait() } }
        let other = Model.spawn("withAccounts(2, 3)") { bank.withAccounts(2, 3) { _, _ in _ = otherPairInside.signal() } }
        Model.join(waiting, other)
    },
    ModelCheck("audit calls back", zh: "audit 的代码块回调银行", stress: ["auditCanCallBack"]) {
        let bank = Bank(balances: [30, 30])
        let seen = Results()
        let auditor = Model.spawn("auditor") {
            bank.audit { balances in
                let moved = bank.transfer(from: 0, to: 1, amount: 10)
                seen.values = [balances.reduce(0, +), bank.total(), bank.balance(of: 1), moved ? 1 : 0]
            }
        }
        Model.join(auditor)
        Model.check(
            seen.values == [60, 60, 40, 1],
            "audit's body called transfer, total and balance on its own thread and saw [sum, total, balance of 1, moved] = \(seen.values), not [60, 60, 40, 1]",
            zh: "audit 的代码块在自己的线程上调用 transfer、total 和 balance，看到 [总和, total, 账户 1 余额, 是否转账] = \(seen.values)，而不是 [60, 60, 40, 1]")
    },
    ModelCheck("a refused transfer, then another", zh: "一笔被拒绝的转账之后再转一笔", stress: ["totalIsConsistent", "randomStressConservesMoney"]) {
        let bank = Bank(balances: [10, 10])
        let results = Results()
        let greedy = Model.spawn("transfer 0 → 1 of 50") { results.values.append(bank.transfer(from: 0, to: 1, amount: 50) ? 1 : 0) }
        let modest = Model.spawn("transfer 1 → 0 of 5") { results.values.append(bank.transfer(from: 1, to: 0, amount: 5) ? 2 : 0) }
        Model.join(greedy, modest)
        let total = bank.total()
        Model.check(
            results.values.sorted() == [0, 2] && total == 20,
            "a transfer of 50 from 10 (refused) and one of 5 returned \(results.values) (0: refused, 2: done) and left a total of \(total), not 20",
            zh: "从 10 里转出 50（被拒绝）和转出 5 的两笔转账返回 \(results.values)（0：被拒绝，2：完成），总额是 \(total)，而不是 20")
    },
]

final class Seen: @unchecked Sendable {
    var before: [Int] = []
    var after: [Int] = []
}

/// How many bodies are inside at once, and the most there ever were.
final class Inside: @unchecked Sendable {
    private var now = 0
    private(set) var most = 0
    func enter() {
        now += 1
        most = max(most, now)
    }
    func leave() { now -= 1 }
}

final class Results: @unchecked Sendable {
    var values: [Int] = []
}
#endif
