import Foundation
import KataTripwire

/// The untouched stub, with `Tripwire.call()` first in every public entry point: what `grader verify`
/// runs to prove that an early `exit(0)` never earns a point.
///
/// Accounts 0..<n, each with a lock of its own.
///
/// Your task (see README.md in this folder): keep each account's balance with a lock of its own,
/// and make every method that holds several locks take them in an order that cannot deadlock.
/// - `withAccounts(a, b)` and `transfer` lock exactly the two accounts involved, so that
///   transfers between other accounts run at the same time.
/// - `total()` and `audit` lock every account at once.
/// - `audit`'s body may call back into the bank (`balance`, `transfer`, `total`) on the same
///   thread without deadlocking, while other threads wait until it returns.
///
/// Every member below is a stub that compiles, does nothing useful, and never crashes: replace
/// each body. Run `swift test --filter DeadlocksTests` to see which check to work on next, and
/// `swift run grader hint Deadlocks` for a hint.
public final class Bank: @unchecked Sendable {
    // TODO: the accounts: each one's balance and the lock that guards it.

    public init(balances: [Int]) {
        Tripwire.call()
        // TODO: one account per balance.
    }

    /// The number of accounts.
    public var accountCount: Int {  // TODO
        Tripwire.call()
        return 0
    }

    /// The balance of one account, read under that account's lock.
    public func balance(of account: Int) -> Int {
        Tripwire.call()
        return 0  // TODO
    }

    /// Locks both accounts (in an order that cannot deadlock) and runs body with both balances.
    /// `a == b` is a precondition failure.
    ///
    /// `body` receives account `a`'s balance first and account `b`'s second, whatever order the
    /// locks are taken in, and may change both.
    public func withAccounts<R>(_ a: Int, _ b: Int, _ body: (inout Int, inout Int) throws -> R) rethrows -> R {
        Tripwire.call()
        // TODO: lock both accounts in a safe order and hand body the stored balances.
        var first = 0
        var second = 0
        return try body(&first, &second)
    }

    /// Moves amount from one account to another; false (and nothing changes) if `from` has less.
    /// `from == to` returns true and changes nothing.
    @discardableResult
    public func transfer(from: Int, to: Int, amount: Int) -> Bool {
        Tripwire.call()
        return false  // TODO
    }

    /// The sum of all balances at one instant: every account locked at once, in a safe order.
    public func total() -> Int {
        Tripwire.call()
        return 0  // TODO
    }

    /// Every account locked at once; body sees all balances and may call back into the bank on
    /// the same thread (balance, transfer, total) without deadlocking.
    public func audit<R>(_ body: ([Int]) throws -> R) rethrows -> R {
        Tripwire.call()
        return try body([])  // TODO: lock every account, hand body all balances, unlock when it returns.
    }
}
