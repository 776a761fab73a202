// The reference solution with no synchronization at all: every lock it takes is this one, which
// does nothing. The chain's value, the graph's nodes and results and the block operation's result
// slots are then read and written from several threads at once.
struct NoLock {
    func lock() {}
    func unlock() {}
    func withLock<T>(_ body: () throws -> T) rethrows -> T { try body() }
}
