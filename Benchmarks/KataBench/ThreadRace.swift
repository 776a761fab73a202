import Foundation

/// Runs a body on `threads` dedicated threads released together, and times from the release to
/// the last thread's return: the wall time of the work alone, without thread start-up.
public enum ThreadRace {
    public static func seconds(threads: Int, _ body: @escaping @Sendable (_ thread: Int) -> Void) -> Double {
        let gate = ReleaseGate()
        let done = DispatchGroup()
        for thread in 0..<threads {
            done.enter()
            let worker = Thread {
                gate.arriveAndWait()
                body(thread)
                done.leave()
            }
            worker.stackSize = 1 << 20
            worker.start()
        }
        gate.release(afterArrivals: threads)
        let start = DispatchTime.now().uptimeNanoseconds
        done.wait()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}

/// Threads that arrive and wait, and the one that releases them all once every one has arrived.
/// Its counters are touched only under `condition`'s lock.
private final class ReleaseGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var arrived = 0
    private var released = false

    func arriveAndWait() {
        condition.lock()
        arrived += 1
        condition.broadcast()
        while !released { condition.wait() }
        condition.unlock()
    }

    /// Returns once `count` threads have arrived, having released them.
    func release(afterArrivals count: Int) {
        condition.lock()
        while arrived < count { condition.wait() }
        released = true
        condition.broadcast()
        condition.unlock()
    }
}

/// A small, fast random number generator for workloads (xorshift), one per thread.
public struct FastRandom: Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    public mutating func next(below bound: Int) -> Int {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Int(state % UInt64(bound))
    }
}
