import Deadlocks
import Foundation
import KataTestSupport
import Testing

/// Everything at once: random transfers, withAccounts, totals and audits (whose bodies call back
/// into the bank) among 10 accounts from 8 threads.
@Suite("Stress", .exitIsAFailure)
struct StressTests {
    static let threads = 8
    static let operations = 1_500
    static let accounts = 10
    static let perAccount = 1_000
    static var money: Int { accounts * perAccount }
    static let place = "random transfers, totals and audits from 8 threads"

    @Test("Random transfers, withAccounts, totals and audits from 8 threads: no deadlock, no negative balance, no money lost")
    func randomStressConservesMoney() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: StressTests.place)
            StressTests.everythingAtOnce()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: Self.place, crashHint: "A crash here usually means a balance was changed without its lock, or a lock was unlocked more often than it was locked.")
    }

    struct Tally {
        var transfers = 0
        var moved = 0
        var wrongTotals: [Int] = []
        var wrongAudits: [String] = []
        var negative: [String] = []
    }

    static func everythingAtOnce() {
        let bank = Bank(balances: Array(repeating: perAccount, count: accounts))
        let tally = Locked(Tally())
        let hint = "Somewhere threads wait for each other in a cycle: every method that holds several locks (withAccounts, transfer, total, audit) must take them in one global order, and calls from inside audit's body must not wait for locks their own thread holds."
        let finished = Watched.gang(threads, in: place, hint: hint) { _, steps in
            var random = SystemRandomNumberGenerator()
            var local = Tally()
            func pick() -> Int { Int.random(in: 0..<accounts, using: &random) }
            for _ in 0..<operations {
                let roll = Int.random(in: 0..<100, using: &random)
                let from = pick()
                let to = pick()  // sometimes equal to `from`: a transfer to itself changes nothing
                switch roll {
                case 0..<70:
                    local.transfers += 1
                    if bank.transfer(from: from, to: to, amount: Int.random(in: 1...300, using: &random)) { local.moved += 1 }
                case 70..<80 where from != to:
                    bank.withAccounts(from, to) { source, destination in
                        let amount = min(source, 50)
                        source -= amount
                        destination += amount
                        if source < 0 || destination < 0 { local.negative.append("withAccounts(\(from), \(to)) saw \(source), \(destination)") }
                    }
                case 80..<90:
                    let total = bank.total()
                    if total != money { local.wrongTotals.append(total) }
                case 90..<95:
                    bank.audit { balances in
                        let sum = balances.reduce(0, +)
                        if sum != money || balances.count != accounts || balances.contains(where: { $0 < 0 }) {
                            local.wrongAudits.append("audit saw \(balances)")
                        }
                        // Call back into the bank from the auditing thread.
                        let inner = bank.total()
                        if inner != money { local.wrongAudits.append("total() inside audit returned \(inner)") }
                        bank.transfer(from: from, to: to, amount: 1)
                    }
                default:
                    let balance = bank.balance(of: from)
                    if balance < 0 { local.negative.append("balance(of: \(from)) was \(balance)") }
                }
                steps.tick()
            }
            tally.withLock {
                $0.transfers += local.transfers
                $0.moved += local.moved
                $0.wrongTotals += local.wrongTotals
                $0.wrongAudits += local.wrongAudits
                $0.negative += local.negative
            }
        }
        guard finished else { return }
        let seen = tally.current
        let balances = (0..<accounts).map { bank.balance(of: $0) }
        #expect(
            seen.moved > 0,
            "None of \(seen.transfers) random transfers succeeded, although every account started with \(perAccount): transfer should move the money when `from` holds enough.")
        #expect(
            balances.reduce(0, +) == money && balances.allSatisfy { $0 >= 0 },
            "At the end the balances are \(balances): they should add up to \(money), none negative. \(balances.reduce(0, +) == money ? "" : "Money appeared or disappeared: some balance was changed by two threads at once. ")Check and move under both accounts' locks.")
        #expect(seen.negative.isEmpty, "A balance was negative: \(seen.negative.prefix(3).joined(separator: "; ")). A transfer must check that `from` holds enough under the same locks as the move.")
        #expect(
            seen.wrongTotals.isEmpty,
            "total() returned \(seen.wrongTotals.prefix(5).map(String.init).joined(separator: ", ")) (\(seen.wrongTotals.count) times) while the bank always holds \(money): total() must hold every account's lock at once.")
        #expect(
            seen.wrongAudits.isEmpty,
            "audit saw money that does not add up to \(money) (\(seen.wrongAudits.count) times): \(seen.wrongAudits.prefix(2).joined(separator: "; ")). audit must hold every account's lock while its body runs.")
    }
}
