import Dispatch
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Holds one thread still at whatever instruction it happens to be on, again and again, so that a
/// second thread can act while it stands there.
///
/// Why: a check-then-act race whose window is a few instructions wide (between two locked
/// sections of one `open()`) is almost never met by two threads running freely, however well
/// their start is aligned. A signal lands wherever its target is, and the handler keeps the target
/// there until the other thread has acted. Measured on the reference's `open()` turned into a
/// count read again after unlocking: about one interruption in twelve left a session shut, where
/// two threads started at the same instant on 1,000 sessions found it in 5 runs of 20.
///
/// `signal` and `pthread_kill` are POSIX and behave alike on Linux and Apple platforms. The state
/// the handler reads is global, so one `Interrupter` runs at a time in a process: the checks that
/// use it are isolated, each in a child process of its own.
public enum Interrupter {
    /// Calls `victim(i)` for `i` in `0..<count` on one thread, as fast as it can, while a second
    /// thread interrupts it over and over; during each interruption the second thread calls
    /// `intruder(i)` for the `i` the victim is in, once per `i`. Stops once the intruder has acted
    /// `interruptions` times, or after `count` calls, or once `seconds` have passed. Returns how
    /// many `i` the victim reached and how often the intruder acted, or nil after recording a
    /// suspected deadlock when nothing moved (no call, no interruption) for `quiet` seconds
    /// (default `seconds` + 1) before the two threads returned. A suite whose watchdog leaves room
    /// passes a longer `quiet`: on a busy machine a process may not run for over a second.
    public static func run(
        count: Int, interruptions: Int, seconds: Double, quiet: Double? = nil, in place: String,
        victim: @escaping @Sendable (Int) -> Void, intruder: @escaping @Sendable (Int) -> Void
    ) -> (reached: Int, interruptions: Int)? {
        installHandler()
        let victimThread = VictimThread()
        let reached = Atomic<Int>(-1)
        let acted = Atomic<Int>(0)
        let intruderStarted = Atomic<Bool>(false)
        let finished = Atomic<Bool>(false)
        let intruderStopped = Atomic<Bool>(false)
        let victimWaits = Atomic<Bool>(false)
        let end = DispatchTime.now() + seconds
        // Progress is every call the victim makes and every interruption: on a busy machine the
        // loop itself may take longer than the quiet spell, which is not a deadlock.
        let returned = ThreadGang.run(
            2, seconds: quiet ?? seconds + 1, in: place,
            progress: { reached.load(ordering: .relaxed) + acted.load(ordering: .relaxed) }
        ) { index in
            if index == 0 {
                victimThread.publish()
                while !intruderStarted.load(ordering: .acquiring) {}
                var lastHold = handlerHeld.load(ordering: .acquiring)
                var lastHoldTime = DispatchTime.now()
                for i in 0..<count {
                    // Nothing but the call between two calls, mostly: the signals should land in it.
                    if i.isMultiple(of: 16) {
                        if acted.load(ordering: .relaxed) >= interruptions || DispatchTime.now() > end { break }
                        // On a busy machine the intruder may not run for a while: rather than race
                        // through calls nobody interrupts, give it the core until a signal lands
                        // (that one lands here, so the intruder lets it go without acting).
                        let held = handlerHeld.load(ordering: .acquiring)
                        if held != lastHold {
                            lastHold = held
                            lastHoldTime = DispatchTime.now()
                        } else if DispatchTime.now() > lastHoldTime + 0.0001 {
                            victimWaits.store(true, ordering: .releasing)
                            while handlerHeld.load(ordering: .acquiring) == held, DispatchTime.now() < end { sched_yield() }
                            victimWaits.store(false, ordering: .releasing)
                            lastHold = handlerHeld.load(ordering: .acquiring)
                            lastHoldTime = DispatchTime.now()
                        }
                    }
                    reached.store(i, ordering: .releasing)
                    victim(i)
                }
                finished.store(true, ordering: .releasing)
                // Exit only when no more signals can come: one sent to a thread that has ended
                // would be undefined behaviour.
                while !intruderStopped.load(ordering: .acquiring) { usleep(50) }
            } else {
                let target = victimThread.await()
                intruderStarted.store(true, ordering: .releasing)
                var last = -1
                while !finished.load(ordering: .acquiring) {
                    handlerHolds.store(false, ordering: .releasing)
                    pthread_kill(target, SIGUSR2)
                    guard waitUntilHeld(orFinished: finished) else { continue }
                    let i = reached.load(ordering: .acquiring)
                    if i >= 0, i != last, !victimWaits.load(ordering: .acquiring) {
                        intruder(i)
                        last = i
                        acted.add(1, ordering: .relaxed)
                    }
                    letGo.store(true, ordering: .releasing)
                    while handlerHolds.load(ordering: .acquiring) {}
                }
                intruderStopped.store(true, ordering: .releasing)
            }
        }
        guard returned else { return nil }
        return (reached.load(ordering: .acquiring) + 1, acted.load(ordering: .acquiring))
    }

    /// Waits until the handler holds the victim (true) or the victim finished (false). A signal
    /// that has not arrived after 1 ms is given up for the next one.
    private static func waitUntilHeld(orFinished finished: borrowing Atomic<Bool>) -> Bool {
        let start = DispatchTime.now()
        while !handlerHolds.load(ordering: .acquiring) {
            let now = DispatchTime.now()
            if finished.load(ordering: .acquiring) || now > start + 0.001 { return false }
            // Spin first: a yield may hand the core to other runnable threads for longer than the
            // handler holds. After 100 µs the victim is probably waiting for this very core.
            if now > start + 0.0001 { sched_yield() }
        }
        return true
    }

    private static let installed = Mutex(false)

    private static func installHandler() {
        installed.withLock { done in
            guard !done else { return }
            // Touch the globals before the handler may: their first use initializes them.
            handlerHolds.store(false, ordering: .relaxed)
            handlerHeld.store(0, ordering: .relaxed)
            letGo.store(false, ordering: .relaxed)
            _ = signal(SIGUSR2, holdUntilLetGo)
            done = true
        }
    }
}

/// True while the handler holds the victim; set by the handler, cleared by the intruder before
/// each signal.
private let handlerHolds = Atomic<Bool>(false)
/// How many times the handler held a thread.
private let handlerHeld = Atomic<Int>(0)
/// Set by the intruder when it has acted; the handler then returns.
private let letGo = Atomic<Bool>(false)

/// The signal handler: says it holds the thread, then waits until the intruder lets it go, at most
/// 1 ms (the intruder may be waiting for a lock the held thread owns). Only atomics,
/// `clock_gettime` (async-signal-safe in POSIX) and `sched_yield` (a bare system call).
private let holdUntilLetGo: @convention(c) (Int32) -> Void = { _ in
    letGo.store(false, ordering: .relaxed)
    handlerHeld.add(1, ordering: .relaxed)
    handlerHolds.store(true, ordering: .sequentiallyConsistent)
    let start = monotonicNanoseconds()
    while !letGo.load(ordering: .acquiring) {
        let now = monotonicNanoseconds()
        if now > start + 1_000_000 { break }
        // After 20 µs the intruder is probably waiting for this very core: give it up.
        if now > start + 20_000 { sched_yield() }
    }
    handlerHolds.store(false, ordering: .releasing)
}

private func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// The victim's `pthread_t`, handed to the intruder once the victim runs. (`pthread_t` is an
/// integer on Linux and a pointer on Apple platforms: handed over through a semaphore rather than
/// an atomic, so that one type fits both.)
private final class VictimThread: @unchecked Sendable {
    private let ready = DispatchSemaphore(value: 0)
    private var thread: pthread_t?

    func publish() {
        // A thread may inherit a mask that blocks the signal (seen here in Swift Testing's exit-test
        // child processes): let it in on this one.
        var only = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, SIGUSR2)
        pthread_sigmask(SIG_UNBLOCK, &only, nil)
        thread = pthread_self()
        ready.signal()
    }

    func await() -> pthread_t {
        ready.wait()
        return thread!
    }
}
