import Foundation

/// The reference solution with all synchronization removed: no account has a lock. What
/// `grader verify` grades to prove that points follow properties: it does the single-thread
/// semantics right, nothing else.
public final class Bank: @unchecked Sendable {
    private final class Account {
        var balance: Int
        init(balance: Int) { self.balance = balance }
    }

    private let accounts: [Account]

    public init(balances: [Int]) {
        accounts = balances.map { Account(balance: $0) }
    }

    public var accountCount: Int { accounts.count }

    public func balance(of account: Int) -> Int {
        accounts[account].balance
    }

    public func withAccounts<R>(_ a: Int, _ b: Int, _ body: (inout Int, inout Int) throws -> R) rethrows -> R {
        precondition(a != b, "withAccounts needs two different accounts, got \(a) twice")
        return try body(&accounts[a].balance, &accounts[b].balance)
    }

    @discardableResult
    public func transfer(from: Int, to: Int, amount: Int) -> Bool {
        if from == to { return true }
        return withAccounts(from, to) { source, destination in
            guard source >= amount else { return false }
            source -= amount
            destination += amount
            return true
        }
    }

    public func total() -> Int {
        accounts.reduce(0) { $0 + $1.balance }
    }

    public func audit<R>(_ body: ([Int]) throws -> R) rethrows -> R {
        try body(accounts.map(\.balance))
    }
}
