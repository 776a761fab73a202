import Foundation

/// The random pauses the suite inserts before and after every label (the puzzles' jitter hook).
///
/// Most pauses are nothing or a yield, so that runs stay fast; some are a few microseconds, long
/// enough for another thread to get ahead; a few are a few hundred microseconds, long enough for a
/// thread to be overtaken by a whole block or by a short `asyncAfter` deadline.
public enum Jitter {
    /// One random pause (the `pause` a `Printer` calls before and after every label).
    public static let pause: @Sendable () -> Void = {
        let roll = Int.random(in: 0..<100)
        switch roll {
        case 0..<35: return
        case 35..<65: sched_yield()
        case 65..<96: usleep(UInt32.random(in: 1...40))
        default: usleep(UInt32.random(in: 100...600))
        }
    }

    /// No pauses: for measuring what a quiet run prints.
    public static let none: @Sendable () -> Void = {}
}
