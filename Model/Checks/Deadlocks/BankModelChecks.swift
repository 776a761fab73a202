#if KATA_MODEL
import KataModel

/// The systematic checks of Deadlocks' Bank: opposite transfers, and an audit beside a transfer.
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
]

final class Results: @unchecked Sendable {
    var values: [Int] = []
}
#endif
