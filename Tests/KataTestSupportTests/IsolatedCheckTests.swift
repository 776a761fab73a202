import Dispatch
import Foundation
import KataTestSupport
import Testing

/// Every way an isolated check can end, through the real exit-test machinery: each must reach
/// the learner as words, and only a body that ran to its end may pass.
@Suite("IsolatedCheck")
struct IsolatedCheckTests {
    static func says(_ text: String) -> @Sendable (Issue) -> Bool {
        { issue in issue.comments.contains { $0.rawValue.contains(text) } }
    }

    /// A wait that never ends. Synchronous on purpose: Apple's Dispatch marks
    /// `DispatchSemaphore.wait()` unavailable from async contexts (an exit test's body is one).
    static func waitForever() {
        DispatchSemaphore(value: 0).wait()
    }

    @Test("A body that runs to its end passes")
    func finishedBodyPasses() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "a clean check")
            IsolatedCheck.finish()
        }
        #expect(IsolatedCheck.explain(ending, in: "a clean check", crashHint: "unused"))
    }

    @Test("A crash is reported with its signal, the place and the hint")
    func crashIsExplained() async {
        await withKnownIssue {
            let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
                IsolatedCheck.begin(in: "a crashing check")
                raise(SIGSEGV)
                IsolatedCheck.finish()
            }
            #expect(!IsolatedCheck.explain(ending, in: "a crashing check", crashHint: "A hint."))
        } matching: { issue in
            issue.comments.contains { $0.rawValue == "Crashed with SIGSEGV (11) in a crashing check. A hint." }
        }
    }

    @Test("A hang ends at the watchdog as a suspected deadlock in the named place")
    func hangIsExplained() async {
        await withKnownIssue {
            let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
                IsolatedCheck.begin(seconds: 0.2, in: "a hanging check")
                IsolatedCheckTests.waitForever()
                IsolatedCheck.finish()
            }
            #expect(!IsolatedCheck.explain(ending, in: "a hanging check", crashHint: "unused"))
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("Deadlock suspected in a hanging check") }
        }
    }

    @Test("A hang whose global queues cannot start a block says so; one whose queues can does not")
    func starvedHangIsExplained() async {
        await withKnownIssue {
            let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
                IsolatedCheck.begin(seconds: 0.2, in: "a starved check")
                // More blocked blocks than a global pool has threads (swift-corelibs-libdispatch
                // stops at DISPATCH_WORKQ_MAX_PTHREAD_COUNT, 255).
                let gate = DispatchSemaphore(value: 0)
                for _ in 0..<256 { DispatchQueue.global().async { gate.wait() } }
                IsolatedCheckTests.waitForever()
                IsolatedCheck.finish()
            }
            #expect(!IsolatedCheck.explain(ending, in: "a starved check", crashHint: "unused"))
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("Deadlock suspected in a starved check") && $0.rawValue.hasSuffix(GlobalQueues.starvedSentence) }
        }
        await withKnownIssue {
            let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
                IsolatedCheck.begin(seconds: 0.2, in: "a quiet hang")
                IsolatedCheckTests.waitForever()
                IsolatedCheck.finish()
            }
            #expect(!IsolatedCheck.explain(ending, in: "a quiet hang", crashHint: "unused"))
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("Deadlock suspected in a quiet hang") && !$0.rawValue.contains(GlobalQueues.starvedSentence) }
        }
    }

    @Test("exit(0) before the end fails, even from another thread")
    func earlyExitZeroFails() async {
        await withKnownIssue {
            let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
                IsolatedCheck.begin(in: "a check whose code exits")
                exit(0)
            }
            #expect(!IsolatedCheck.explain(ending, in: "a check whose code exits", crashHint: "unused"))
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("The process exited with status 0 before the check finished") }
        }
        await withKnownIssue {
            let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
                IsolatedCheck.begin(in: "a check whose worker thread exits")
                Thread { exit(0) }.start()
                usleep(5_000_000)
                IsolatedCheck.finish()
            }
            #expect(!IsolatedCheck.explain(ending, in: "a check whose worker thread exits", crashHint: "unused"))
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("The process exited with status 0 before the check finished") }
        }
    }

    @Test("exit with another status before the end fails and names the status")
    func earlyExitOtherStatusFails() async {
        await withKnownIssue {
            let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
                IsolatedCheck.begin(in: "a check whose code exits")
                exit(3)
            }
            #expect(!IsolatedCheck.explain(ending, in: "a check whose code exits", crashHint: "unused"))
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("The process exited with status 3 before the check finished") }
        }
    }

    @Test("ThreadSanitizer's exit code 66 is reported as a data race")
    func sanitizerExitIsExplained() async {
        await withKnownIssue {
            let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
                IsolatedCheck.begin(in: "a racy check")
                _exit(66)  // what ThreadSanitizer does at exit after a report
            }
            #expect(!IsolatedCheck.explain(ending, in: "a racy check", crashHint: "Protect it."))
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("ThreadSanitizer reported a data race in a racy check") }
        }
    }

    @Test("Deadline.wait(unless:) fails at once with the reason when the event cannot come")
    func hopelessWaitFailsAtOnce() {
        let started = DispatchTime.now()
        withKnownIssue {
            Deadline.wait(for: DispatchSemaphore(value: 0), seconds: 3, in: "a test", waitingFor: "a signal") {
                "main() never ran: start() returned without calling it."
            }
        } matching: { issue in
            issue.comments.contains { $0.rawValue == "main() never ran: start() returned without calling it." }
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        #expect(elapsed < 1, "a hopeless wait should give up at once, took \(elapsed) s")
        let signalled = DispatchSemaphore(value: 0)
        signalled.signal()
        #expect(Deadline.wait(for: signalled, in: "a test", waitingFor: "a signal") { "never asked" })
    }
}

/// A check that exits the main test process is not a pass: the trait's handler fails the run.
@Suite("Early exit in the main process")
struct EarlyExitTraitTests {
    @Test("exit(0) while a check of a suite with .exitIsAFailure runs ends the process with status 1 and names the check")
    func exitDuringCheckFailsTheRun() async {
        let ending = await #expect(processExitsWith: .exitCode(1), observing: [\.standardErrorContent]) {
            await EarlyExitTrait.whileRunning("aCheck()") { exit(0) }
        }
        let said = String(decoding: ending?.standardErrorContent ?? [], as: UTF8.self)
        #expect(said.contains("The process exited while aCheck() was running: something in your code called exit()"), "stderr: \(said)")
    }
}
