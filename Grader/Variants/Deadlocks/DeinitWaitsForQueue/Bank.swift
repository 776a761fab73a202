import Foundation

/// Accounts 0..<n, each with a lock of its own.
///
/// Reference solution. Three deadlocks are avoided here, one per method family:
/// - **Lock ordering.** Every method that holds more than one account's lock takes the locks in
///   one global order: the lower account number first. Two threads then never hold each other's
///   next lock, so the wait-for graph cannot close a cycle, whatever the direction of a transfer.
/// - **Re-entry.** `audit` holds every lock while its body runs, and the body may call back into
///   the bank on the same thread. The locks are `NSRecursiveLock`s: the thread that owns one may
///   take it again (it counts), where an `NSLock` taken twice on one thread waits for itself.
/// - **One account twice.** `withAccounts(a, a)` is a precondition failure: the same balance cannot
///   be handed out as two `inout` values, and `transfer(from: a, to: a)` returns before locking.
public final class Bank: @unchecked Sendable {
    /// One account: its balance and the lock that guards it. A class, so that two threads change
    /// two accounts without touching any shared storage (an `[Int]` changed from several threads
    /// is one shared value, even when they change different elements).
    private final class Account {
        let lock = NSRecursiveLock()
        var balance: Int
        init(balance: Int) { self.balance = balance }
    }

    /// Never changes after `init`: reading it needs no lock.
    private let accounts: [Account]

    public init(balances: [Int]) {
        accounts = balances.map { Account(balance: $0) }
    }

    public var accountCount: Int { accounts.count }

    public func balance(of account: Int) -> Int {
        let account = accounts[account]
        account.lock.lock()
        defer { account.lock.unlock() }
        return account.balance
    }

    /// Locks both accounts (the lower number first) and runs body with both balances, in the
    /// order the caller named them. `a == b` is a precondition failure.
    public func withAccounts<R>(_ a: Int, _ b: Int, _ body: (inout Int, inout Int) throws -> R) rethrows -> R {
        precondition(a != b, "withAccounts needs two different accounts, got \(a) twice")
        let (first, second) = a < b ? (accounts[a], accounts[b]) : (accounts[b], accounts[a])
        first.lock.lock()
        second.lock.lock()
        // Unlock in the reverse order (not required for correctness, but the habit keeps
        // nested critical sections well formed).
        defer {
            second.lock.unlock()
            first.lock.unlock()
        }
        return try body(&accounts[a].balance, &accounts[b].balance)
    }

    /// Moves amount from one account to another; false (and nothing changes) if `from` has less.
    /// `from == to` returns true and changes nothing.
    @discardableResult
    public func transfer(from: Int, to: Int, amount: Int) -> Bool {
        if from == to { return true }
        return withAccounts(from, to) { source, destination in
            // The check and the move happen under both locks: no other transfer can spend the
            // money between them.
            guard source >= amount else { return false }
            source -= amount
            destination += amount
            return true
        }
    }

    /// The sum of all balances at one instant: every account locked at once, in the same order
    /// as everywhere else. Summing account by account, each under its own lock in turn, would
    /// miss or double-count money that a transfer moves between an account already summed and
    /// one not yet summed.
    public func total() -> Int {
        lockAll()
        defer { unlockAll() }
        return accounts.reduce(0) { $0 + $1.balance }
    }

    /// Every account locked at once; body sees all balances and may call back into the bank on
    /// the same thread (balance, transfer, total) without deadlocking: the locks are recursive.
    /// Other threads wait until body returns.
    public func audit<R>(_ body: ([Int]) throws -> R) rethrows -> R {
        lockAll()
        defer { unlockAll() }
        return try body(accounts.map(\.balance))
    }

    /// Ascending order: the global order every multi-lock method uses.
    private func lockAll() {
        for account in accounts { account.lock.lock() }
    }

    private func unlockAll() {
        for account in accounts.reversed() { account.lock.unlock() }
    }
}
