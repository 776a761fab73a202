import Dispatch
import Foundation
import QueueOrderingGiven

/// What a number of runs of one puzzle printed: each output with how many runs printed it.
public struct Tally: Sendable {
    /// How many runs were added: runs that printed a whole output (an unfinished run is not added).
    public var runs = 0
    /// Each output printed, with how many runs printed it.
    public var counts: [String: Int] = [:]
    /// Runs that did not complete within the per-run deadline. Their partial output is not an
    /// output the puzzle printed, so it is not counted: on a machine so loaded that a run took
    /// longer than the deadline, "24" would otherwise read as an output the prediction missed.
    public var unfinished = 0

    /// No runs yet.
    public init() {}

    /// Counts one run that printed `output`.
    public mutating func add(_ output: String) {
        runs += 1
        counts[output, default: 0] += 1
    }

    /// The outputs printed at least once.
    public var outputs: Set<String> { Set(counts.keys) }

    /// "2413 ×31, 2143 ×12, …", most frequent first.
    public var summary: String {
        counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
    }
}

/// Runs puzzles that do not deadlock, in this process.
public enum PuzzleRuns {
    /// The per-run deadline: a complete run takes well under a millisecond.
    public static let runSeconds: Double = 2

    /// Runs a puzzle that does not deadlock `runs` times on the current thread, with `pause` as
    /// its jitter, waiting for each run to print every label before the next starts. With
    /// `seconds`, stops early once that much time has passed (on a machine so loaded that every
    /// thread switch takes milliseconds): the runs are evidence for the messages, while the verdict
    /// comes from the happens-before model, so fewer runs never turn a pass into a failure.
    /// Only finished runs are counted; the others only in `unfinished`. `runSeconds` is the
    /// per-run deadline (the self-tests shorten it).
    public static func tally(
        _ puzzle: Puzzle, runs: Int, seconds: Double? = nil, runSeconds: Double = runSeconds,
        pause: @escaping @Sendable () -> Void = Jitter.pause
    ) -> Tally {
        var tally = Tally()
        let end = seconds.map { DispatchTime.now().uptimeNanoseconds + UInt64($0 * 1e9) }
        for _ in 0..<runs {
            if let end, DispatchTime.now().uptimeNanoseconds > end { break }
            let printer = Printer(expecting: puzzle.labelCount, pause: pause)
            puzzle.run(printing: printer)
            guard printer.waitUntilComplete(seconds: runSeconds) else {
                tally.unfinished += 1
                continue
            }
            tally.add(printer.output)
        }
        return tally
    }

    /// The same on a dedicated thread (runs block their thread in short waits, which must not
    /// hold one of the cooperative pool's few threads); resumes when the runs are done.
    public static func tallyOnThread(_ puzzle: Puzzle, runs: Int, seconds: Double? = nil, pause: @escaping @Sendable () -> Void = Jitter.pause) async -> Tally {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: tally(puzzle, runs: runs, seconds: seconds, pause: pause))
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }
}
