import Foundation

/// The wrong banks of the model (not grader variants): the reference solution with one fault each,
/// the fault chosen at compile time. Each `Model/Builds/Deadlocks/<Fault>/` module links this file
/// and is built with `-D KATA_WRONG_<Fault>` (`Package.swift`, `modeledBuilds`); the lines under
/// `#else` are the reference's. The faults are the order bugs of the catch-rate table in
/// `Tests/DeadlocksTests/MAINTAINERS.md`, and the classic lock-order deadlock:
/// - `OppositeOrder`: `withAccounts` locks in the caller's order, so transfers 0 → 1 and 1 → 0 can
///   each hold the lock the other needs next.
/// - `TotalInTurn`: `total()` adds the accounts one by one, each under its own lock in turn: a
///   transfer can land between two reads.
/// - `TotalDecreasing`: `total()` and `audit` lock from the highest account down, transfers from
///   the lowest up.
/// - `NonRecursive`: `NSLock`s: `audit`'s body calling back into the bank waits for itself.
/// - `AuditNoLock`: `audit` takes no lock.
/// - `AuditAfterUnlock`: `audit` copies the balances under every lock, lets them go, then runs its
///   body: other threads' transfers run while it does.
/// - `OneLock`: one lock for the whole bank: right, but disjoint pairs wait for each other.
/// - `LockPerPair`: one lock per pair of accounts: `withAccounts(0, 1)` and `withAccounts(1, 2)`
///   change account 1 at the same time.
/// - `RefusedKeepsLocks`: a refused `transfer` returns without unlocking.
public final class Bank: @unchecked Sendable {
    private final class Account {
        #if KATA_WRONG_NonRecursive
        let lock = NSLock()
        #else
        let lock = NSRecursiveLock()
        #endif
        var balance: Int
        init(balance: Int) { self.balance = balance }
    }

    private let accounts: [Account]
    #if KATA_WRONG_OneLock
    private let bankLock = NSRecursiveLock()
    #endif
    #if KATA_WRONG_LockPerPair
    /// One lock per pair (low, high), at low * count + high.
    private let pairLocks: [NSRecursiveLock]
    #endif

    public init(balances: [Int]) {
        accounts = balances.map { Account(balance: $0) }
        #if KATA_WRONG_LockPerPair
        pairLocks = (0..<balances.count * balances.count).map { _ in NSRecursiveLock() }
        #endif
    }

    public var accountCount: Int { accounts.count }

    public func balance(of account: Int) -> Int {
        #if KATA_WRONG_OneLock
        bankLock.lock()
        defer { bankLock.unlock() }
        return accounts[account].balance
        #else
        let account = accounts[account]
        account.lock.lock()
        defer { account.lock.unlock() }
        return account.balance
        #endif
    }

    public func withAccounts<R>(_ a: Int, _ b: Int, _ body: (inout Int, inout Int) throws -> R) rethrows -> R {
        precondition(a != b, "withAccounts needs two different accounts, got \(a) twice")
        #if KATA_WRONG_OneLock
        bankLock.lock()
        defer { bankLock.unlock() }
        #elseif KATA_WRONG_LockPerPair
        let pair = pairLocks[min(a, b) * accounts.count + max(a, b)]
        pair.lock()
        defer { pair.unlock() }
        #else
        #if KATA_WRONG_OppositeOrder
        let (first, second) = (accounts[a], accounts[b])
        #else
        let (first, second) = a < b ? (accounts[a], accounts[b]) : (accounts[b], accounts[a])
        #endif
        first.lock.lock()
        second.lock.lock()
        defer {
            second.lock.unlock()
            first.lock.unlock()
        }
        #endif
        return try body(&accounts[a].balance, &accounts[b].balance)
    }

    @discardableResult
    public func transfer(from: Int, to: Int, amount: Int) -> Bool {
        if from == to { return true }
        #if KATA_WRONG_RefusedKeepsLocks
        let (first, second) = from < to ? (accounts[from], accounts[to]) : (accounts[to], accounts[from])
        first.lock.lock()
        second.lock.lock()
        guard accounts[from].balance >= amount else { return false }
        accounts[from].balance -= amount
        accounts[to].balance += amount
        second.lock.unlock()
        first.lock.unlock()
        return true
        #else
        return withAccounts(from, to) { source, destination in
            guard source >= amount else { return false }
            source -= amount
            destination += amount
            return true
        }
        #endif
    }

    public func total() -> Int {
        #if KATA_WRONG_TotalInTurn
        var sum = 0
        for account in accounts {
            account.lock.lock()
            sum += account.balance
            account.lock.unlock()
        }
        return sum
        #else
        lockAll()
        defer { unlockAll() }
        return accounts.reduce(0) { $0 + $1.balance }
        #endif
    }

    public func audit<R>(_ body: ([Int]) throws -> R) rethrows -> R {
        #if KATA_WRONG_AuditNoLock
        return try body(accounts.map(\.balance))
        #elseif KATA_WRONG_AuditAfterUnlock
        lockAll()
        let balances = accounts.map(\.balance)
        unlockAll()
        return try body(balances)
        #else
        lockAll()
        defer { unlockAll() }
        return try body(accounts.map(\.balance))
        #endif
    }

    private func lockAll() {
        #if KATA_WRONG_OneLock
        bankLock.lock()
        #elseif KATA_WRONG_TotalDecreasing
        for account in accounts.reversed() { account.lock.lock() }
        #else
        for account in accounts { account.lock.lock() }
        #endif
    }

    private func unlockAll() {
        #if KATA_WRONG_OneLock
        bankLock.unlock()
        #else
        for account in accounts.reversed() { account.lock.unlock() }
        #endif
    }
}
