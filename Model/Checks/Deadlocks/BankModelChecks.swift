#if KATA_MODEL
import KataModel

/// The systematic checks of Deadlocks' Bank: opposite transfers, and an audit beside a transfer.
public let modelChecks: [ModelCheck] = [
    ModelCheck("opposite transfers") {
        let bank = Bank(balances: [100, 100])
        let there = Model.spawn("transfer 0 → 1") { bank.transfer(from: 0, to: 1, amount: 10) }
        let back = Model.spawn("transfer 1 → 0") { bank.transfer(from: 1, to: 0, amount: 20) }
        Model.join(there, back)
        let total = bank.total()
        Model.check(
            total == 200, "after two transfers the bank holds \(total), not 200",
            zh: "两次转账之后银行总额是 \(total)，而不是 200")
    },
    ModelCheck("nested sync on a worker") {
        let worker = SerialWorker(label: "worker")
        let done = Results()
        let caller = Model.spawn("caller") {
            worker.sync { worker.sync { done.values.append(1) } }
        }
        let submitter = Model.spawn("submitter") {
            worker.async { worker.sync { done.values.append(2) } }
        }
        Model.join(caller, submitter)
        Model.joinAll()
        Model.check(
            done.values.sorted() == [1, 2], "nested sync calls on one SerialWorker ran \(done.values), not both",
            zh: "同一个 SerialWorker 上的嵌套 sync 调用只运行了 \(done.values)，而不是两个都运行")
    },
    ModelCheck("audit beside a transfer") {
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
