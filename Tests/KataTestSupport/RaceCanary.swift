// The race check's proof that ThreadSanitizer runs: compiled only into the grader's
// ThreadSanitizer build (Package.swift defines KATA_RACE_CANARY when the grader sets it), so a
// learner's `swift test` never sees it.
#if KATA_RACE_CANARY
import Foundation
import Synchronization
import Testing

/// Two known data races outside the learner's code: one in the test process, one in an isolated
/// check's child process. The grader believes "no race in your code" only after it has found and
/// read both reports in the same run: that proves ThreadSanitizer was loaded in both kinds of
/// process (on Apple platforms an exit test's child loses it unless `strip_env=0`), that its
/// reports reached the grader's log folder, that they name files and lines (`RaceCanary.swift:<line>`,
/// as a learner's race must be named), and that the grader reads that platform's format.
/// The grader recognizes the reports by the two function names below (`RaceCanaryKind.marker`:
/// keep them free of the words of the module's name, which mangling would abbreviate) and never
/// counts them against the learner.
@Suite("Race check canary")
struct RaceCanary {
    /// On a busy Mac, `atos` starts cold and symbolizes a whole report before ThreadSanitizer
    /// prints it (compiler-rt `sanitizer_symbolizer_mac.cpp`, `AtosSymbolizerProcess`): the
    /// canary's waits leave it far more time than the suites' default watchdog does.
    static let seconds: Double = 60

    @Test("ThreadSanitizer reports a known race in the test process and in an isolated check")
    func bothKindsOfProcess() async {
        raceTwoThreads(kataRaceCanaryInParentProcess)
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: RaceCanary.seconds, in: "the race check canary")
            raceTwoThreads(kataRaceCanaryInIsolatedCheck)
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "the race check canary", crashHint: "ThreadSanitizer may not have started in the child process.")
    }
}

nonisolated(unsafe) private var canaryCellInTestProcess = 0
nonisolated(unsafe) private var canaryCellInIsolatedCheck = 0

/// Two threads write the same variable with nothing ordering the writes. Both first meet at a
/// barrier (an atomic count, which orders nothing after it), so that neither write can end
/// before the other thread has started: on Apple platforms ThreadSanitizer sees the locks inside
/// Foundation's thread start and exit, which would order a write that ended first before a
/// thread started later, and there would be no race to report.
private func raceTwoThreads(_ write: @escaping @Sendable () -> Void) {
    let barrier = ArrivalCount()
    let done = DispatchSemaphore(value: 0)
    let threads = (0..<2).map { _ in
        Thread {
            barrier.arriveAndWait(for: 2, seconds: RaceCanary.seconds)
            write()
            done.signal()
        }
    }
    threads.forEach { $0.start() }
    for _ in threads { _ = done.wait(timeout: .now() + RaceCanary.seconds) }
}

/// Threads that wait until `count` of them have arrived (or `seconds` have passed: a thread that
/// never started makes no race, and the grader says the race check could not run).
private final class ArrivalCount: Sendable {
    private let arrived = Atomic<Int>(0)

    func arriveAndWait(for count: Int, seconds: Double) {
        arrived.add(1, ordering: .relaxed)
        let deadline = Date(timeIntervalSinceNow: seconds)
        while arrived.load(ordering: .relaxed) < count, Date() < deadline { usleep(100) }
    }
}

@inline(never) private func kataRaceCanaryInParentProcess() { canaryCellInTestProcess += 1 }
@inline(never) private func kataRaceCanaryInIsolatedCheck() { canaryCellInIsolatedCheck += 1 }
#endif
