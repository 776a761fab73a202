import Dispatch
import Foundation
import KataTestSupport
import MainHop
import Testing

/// A Unix signal handled on a queue. Isolated: signals and their actions belong to the process.
@Suite("Signal watcher", .exitIsAFailure)
struct SignalWatcherTests {
    static let crashHint = "libdispatch traps on a source resumed twice or released before it was resumed."
    static let signals: [CInt: String] = [
        SIGUSR1: "the signal's default action ended the process. A signal source only observes a signal: set its default action aside first (signal(SIGUSR1, SIG_IGN)), then resume the source.",
    ]
    static let queueKey = DispatchSpecificKey<String>()

    @Test("SIGUSR1 in three rounds runs the handler on the given queue each time, and the process lives on")
    func signalHandledOnQueue() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "SIGUSR1 watched")
            SignalWatcherTests.handled()
            IsolatedCheck.finish()
        }
        explain(ending, in: "SIGUSR1 sent to the process", crashHint: Self.crashHint, signals: Self.signals)
    }

    static func handled() {
        let queue = DispatchQueue(label: "signals")
        queue.setSpecific(key: queueKey, value: "signals")
        let calls = Locked(0), offQueue = Locked(0)
        let called = DispatchSemaphore(value: 0)
        let watch = ReleaseWatch()
        let watcher: SignalWatcher
        do {
            watcher = try SignalWatcher(signal: SIGUSR1, queue: queue, handler: watch.tie {
                if DispatchQueue.getSpecific(key: queueKey) != "signals" { offQueue.withLock { $0 += 1 } }
                calls.withLock { $0 += 1 }
                called.signal()
            })
        } catch {
            Issue.record("SignalWatcher(signal: SIGUSR1, …) threw \(error); SIGUSR1 can be caught.")
            return
        }
        // A source is armed by libdispatch's own thread shortly after resume() returns; a signal
        // that comes before is ignored (SIG_IGN) and lost. So each round sends again every 100 ms
        // until the handler has run once more.
        for round in 1...3 {
            let before = calls.current
            let end = DispatchTime.now() + Deadline.promptSeconds
            while calls.current == before, DispatchTime.now() < end {
                kill(getpid(), SIGUSR1)
                _ = called.wait(timeout: .now() + 0.1)
                if watch.isReleased, calls.current == before {
                    Issue.record("The watcher let go of its handler without calling it. Keep it as the signal source's event handler.")
                    return
                }
            }
            guard calls.current > before else {
                DeadlockReport.record(in: "SIGUSR1 round \(round)", waitingFor: "the handler running (SIGUSR1 sent every 100 ms)", seconds: Deadline.promptSeconds)
                return
            }
        }
        #expect(calls.current >= 3, "The handler ran \(calls.current) times in 3 rounds of signals.")
        #expect(offQueue.current == 0, "The handler ran \(offQueue.current) times off the queue it was given: create the signal source on that queue.")
        watcher.cancel()
        watcher.cancel()
    }

    @Test("SIGKILL and SIGSTOP are refused with SignalWatchError.cannotBeCaught; SIGUSR2 is accepted")
    func uncatchableSignalsRefused() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "signals that cannot be caught")
            SignalWatcherTests.refused()
            IsolatedCheck.finish()
        }
        explain(ending, in: "signals that cannot be caught", crashHint: Self.crashHint)
    }

    static func refused() {
        let queue = DispatchQueue(label: "signals")
        for (signal, name) in [(SIGKILL, "SIGKILL"), (SIGSTOP, "SIGSTOP")] {
            do {
                let watcher = try SignalWatcher(signal: signal, queue: queue) {}
                watcher.cancel()
                Issue.record("SignalWatcher accepted \(name), whose handler could never run: \(name) can be neither caught nor ignored. Throw SignalWatchError.cannotBeCaught(\(name)).")
            } catch let error as SignalWatchError {
                #expect(error == .cannotBeCaught(signal), "SignalWatcher refused \(name) with \(error), expected .cannotBeCaught(\(signal)).")
            } catch {
                Issue.record("SignalWatcher refused \(name) with \(error), expected SignalWatchError.cannotBeCaught(\(signal)).")
            }
        }
        do {
            let watcher = try SignalWatcher(signal: SIGUSR2, queue: queue) {}
            watcher.cancel()
        } catch {
            Issue.record("SignalWatcher refused SIGUSR2 with \(error); it can be caught.")
        }
    }
}
