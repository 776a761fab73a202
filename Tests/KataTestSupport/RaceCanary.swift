// The race check's proof that ThreadSanitizer runs: compiled only into the grader's
// ThreadSanitizer build (Package.swift defines KATA_RACE_CANARY when the grader sets it), so a
// learner's `swift test` never sees it.
#if KATA_RACE_CANARY
import Foundation
import Testing

/// Two known data races outside the learner's code: one in the test process, one in an isolated
/// check's child process. The grader believes "no race in your code" only after it has found and
/// read both reports in the same run: that proves ThreadSanitizer was loaded in both kinds of
/// process (on Apple platforms an exit test's child loses it unless `strip_env=0`), that its
/// reports reached the grader's log folder, and that the grader reads that platform's format.
/// The grader recognizes the reports by the two function names below (`RaceCanaryKind.marker`:
/// keep them free of the words of the module's name, which mangling would abbreviate) and never
/// counts them against the learner.
@Suite("Race check canary")
struct RaceCanary {
    @Test("ThreadSanitizer reports a known race in the test process and in an isolated check")
    func bothKindsOfProcess() async {
        raceTwoThreads(kataRaceCanaryInParentProcess)
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "the race check canary")
            raceTwoThreads(kataRaceCanaryInIsolatedCheck)
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "the race check canary", crashHint: "ThreadSanitizer may not have started in the child process.")
    }
}

nonisolated(unsafe) private var canaryCellInTestProcess = 0
nonisolated(unsafe) private var canaryCellInIsolatedCheck = 0

/// Two threads write the same variable with nothing ordering the writes: a race ThreadSanitizer
/// reports whatever the timing, since neither thread happens before the other.
private func raceTwoThreads(_ write: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let threads = (0..<2).map { _ in Thread { write(); done.signal() } }
    threads.forEach { $0.start() }
    for _ in threads { _ = done.wait(timeout: .now() + 10) }
}

@inline(never) private func kataRaceCanaryInParentProcess() { canaryCellInTestProcess += 1 }
@inline(never) private func kataRaceCanaryInIsolatedCheck() { canaryCellInIsolatedCheck += 1 }
#endif
