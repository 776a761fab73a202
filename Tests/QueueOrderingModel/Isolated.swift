import Foundation
import KataTestSupport
import QueueOrderingGiven
import Testing

/// Deadlocking puzzles run in child processes: a deadlocked GCD queue can never be freed, and
/// libdispatch stops the whole process when it detects a `sync` onto the serial queue the caller
/// is running on. The child writes what it printed to its standard output as it goes, so the parent
/// sees it whatever ended the child.
public enum Isolated {
    /// Marks the start of the child's report in its standard output.
    static let marker = "#QO:"

    /// Writes to standard output at once, unbuffered: a crash a moment later loses nothing.
    static func emit(_ text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBufferPointer { _ = write(1, $0.baseAddress, $0.count) }
    }

    /// The report part of a child's standard output.
    static func report(in output: [UInt8]) -> String? {
        let text = String(decoding: output, as: UTF8.self)
        guard let range = text.range(of: marker, options: .backwards) else { return nil }
        return String(text[range.upperBound...])
    }

    // MARK: A puzzle that libdispatch stops (one run per child)

    /// What one child printed: its labels, and whether the caller's part had returned (if not, the
    /// process was stopped in the middle and the labels are only the beginning of an output).
    public struct Stop: Sendable {
        /// The labels the child printed, in order.
        public var output: String
        /// Whether the caller's part of the puzzle had returned when the child was stopped.
        public var callerReturned: Bool

        /// A stopped child printed a whole output if its caller's part had returned, or if it
        /// printed every label that can be printed (the caller printed its last label, then the
        /// stop came).
        public func isComplete(of puzzle: Puzzle) -> Bool {
            callerReturned || output.count == puzzle.happensBefore.printed.count
        }
    }

    /// The child: runs the puzzle once, writing each label as it is printed and "|" when the
    /// caller's part returns. libdispatch usually ends the process at the deadlock; if it hangs
    /// instead, the child waits until the labels that can be printed are printed, and a little
    /// longer for any that should not be, then reports and finishes.
    static func runOnceAndStop(_ name: String) -> Never {
        IsolatedCheck.begin(in: "the puzzle \(name), run in a child process")
        guard let puzzle = Puzzle(rawValue: name) else { _exit(3) }
        emit(marker)
        let printer = Printer(expecting: puzzle.labelCount, pause: Jitter.pause, echo: { label in
            Isolated.emit(String(label))
        })
        puzzle.run(printing: printer)
        emit("|")
        let printable = puzzle.happensBefore.printed.count
        let end = Date(timeIntervalSinceNow: 3)
        while printer.count < printable && Date() < end { usleep(200) }
        usleep(100_000)
        emit(".")
        IsolatedCheck.finish()
    }

    /// Runs `children` children of `runOnceAndStop`, a few at a time; nil if one ended in a way
    /// that is not a stop (the failure is recorded).
    /// With `seconds`, starts no more children once that much time has passed (each lane runs at
    /// least two).
    public static func stops(of puzzle: Puzzle, children: Int, lanes: Int = 3, seconds: Double? = nil) async -> [Stop]? {
        let perLane = (children + lanes - 1) / lanes
        let end = seconds.map { DispatchTime.now().uptimeNanoseconds + UInt64($0 * 1e9) }
        let results = await withTaskGroup(of: [Stop?].self) { group in
            for _ in 0..<lanes {
                group.addTask {
                    var stops: [Stop?] = []
                    for index in 0..<perLane {
                        if index >= 2, let end, DispatchTime.now().uptimeNanoseconds > end { break }
                        stops.append(await oneStop(of: puzzle))
                    }
                    return stops
                }
            }
            var all: [Stop?] = []
            for await lane in group { all += lane }
            return all
        }
        let stops = results.compactMap { $0 }
        return stops.count == results.count ? stops : nil
    }

    private static func oneStop(of puzzle: Puzzle) async -> Stop? {
        let place = "the puzzle \(puzzle), run in a child process"
        // An exit test's body captures nothing before Swift 6.3 (capture lists there are proposal
        // ST-0012, Swift 6.3): each puzzle that libdispatch stops has a body naming it literally.
        let ending: ExitTest.Result?
        switch puzzle {
        case .serialSyncInsideAsync:
            ending = await #expect(processExitsWith: .failure, observing: [\.standardOutputContent], IsolatedCheck.exitedEarly) {
                Isolated.runOnceAndStop(Puzzle.serialSyncInsideAsync.rawValue)
            }
        default:
            Issue.record("No child process is written for the puzzle \(puzzle): add a case to Isolated.oneStop(of:).")
            return nil
        }
        guard let ending else { return nil }
        switch ending.exitStatus {
        case .signal(SIGILL), .signal(SIGTRAP), .exitCode(IsolatedCheck.finishedCode):
            // Stopped by libdispatch's deadlock detection, or hung and reported by the child.
            break
        default:
            IsolatedCheck.explain(ending, in: place, crashHint: "The puzzle's code is given; this is not your code's fault: please report it.")
            return nil
        }
        guard let report = report(in: ending.standardOutputContent) else {
            Issue.record("The child running \(puzzle) wrote no report.")
            return nil
        }
        return Stop(output: String(report.filter(\.isNumber)), callerReturned: report.contains("|"))
    }

    // MARK: A puzzle that hangs (many runs in one child)

    /// The child: runs a puzzle that hangs `runs` times (every run leaves a thread waiting forever),
    /// waits for each run to print what it can, then a little longer for anything it should not,
    /// and writes every run's output.
    static func runHanging(_ name: String, runs: Int) -> Never {
        IsolatedCheck.begin(in: "the puzzle \(name), run in a child process")
        guard let puzzle = Puzzle(rawValue: name) else { _exit(3) }
        let printable = puzzle.happensBefore.printed.count
        var printers: [Printer] = []
        for _ in 0..<runs {
            let printer = Printer(expecting: puzzle.labelCount, pause: Jitter.pause)
            puzzle.run(printing: printer)
            let end = Date(timeIntervalSinceNow: 2)
            while printer.count < printable && Date() < end { usleep(50) }
            printers.append(printer)
        }
        usleep(50_000)
        emit(marker + printers.map(\.output).joined(separator: ",") + ";")
        IsolatedCheck.finish()
    }

    /// Runs `runHanging` `RunBudget.hangingRuns` times in a child; nil if the child did not report
    /// (the failure is recorded).
    public static func hangingRuns(of puzzle: Puzzle) async -> Tally? {
        let place = "the puzzle \(puzzle), run \(RunBudget.hangingRuns) times in a child process"
        // As in `oneStop`: one body per puzzle that hangs, naming it literally.
        let ending: ExitTest.Result?
        switch puzzle {
        case .semaphoreOnOneSerialQueue:
            ending = await #expect(processExitsWith: .failure, observing: [\.standardOutputContent], IsolatedCheck.exitedEarly) {
                Isolated.runHanging(Puzzle.semaphoreOnOneSerialQueue.rawValue, runs: RunBudget.hangingRuns)
            }
        default:
            Issue.record("No child process is written for the puzzle \(puzzle): add a case to Isolated.hangingRuns(of:).")
            return nil
        }
        guard IsolatedCheck.explain(ending, in: place, crashHint: "The puzzle's code is given; this is not your code's fault: please report it."),
              let ending, let report = report(in: ending.standardOutputContent), report.hasSuffix(";")
        else { return nil }
        var tally = Tally()
        for output in report.dropLast().split(separator: ",", omittingEmptySubsequences: false) { tally.add(String(output)) }
        return tally
    }
}
