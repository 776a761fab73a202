import Foundation

/// Runs a body on `threads` dedicated threads released together, and times from the release to
/// the last thread's return: the wall time of the work alone, without thread start-up.
public enum ThreadRace {
    public static func seconds(threads: Int, _ body: @escaping @Sendable (_ thread: Int) -> Void) -> Double {
        let gate = NSCondition()
        nonisolated(unsafe) var ready = 0
        nonisolated(unsafe) var released = false
        let done = DispatchGroup()
        for thread in 0..<threads {
            done.enter()
            let worker = Thread {
                gate.lock()
                ready += 1
                gate.broadcast()
                while !released { gate.wait() }
                gate.unlock()
                body(thread)
                done.leave()
            }
            worker.stackSize = 1 << 20
            worker.start()
        }
        gate.lock()
        while ready < threads { gate.wait() }
        released = true
        let start = DispatchTime.now().uptimeNanoseconds
        gate.broadcast()
        gate.unlock()
        done.wait()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
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
