import CoreFoundation
import Dispatch
import Foundation
import KataTestSupport
import RunLoopThread
import Testing

/// schedule(after:repeating:modes:_:): timers that fire on the loop's thread, in the modes they
/// were added for. A check plays a scroll view: a block on the loop thread runs the loop in a
/// mode of its own for 300 ms (a nested run, as UIScrollView does with UITrackingRunLoopMode),
/// and each timer's ticks record the mode the loop was in.
@Suite("Timers and modes", .exitIsAFailure)
struct TimerTests {
    static let crashHint = "A timer is added to a run loop from the loop's own thread (a block performed on it); shared state needs a lock."

    @Test("A one-shot and a repeating timer fire on the loop's thread, not before their time")
    func timerFiresOnLoopThread() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "timers on the loop's thread")
            TimerTests.firesOnLoopThread()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "timers on the loop's thread", crashHint: TimerTests.crashHint)
    }

    static let neverFiredHint = "A Timer fires only on a thread whose run loop runs, in one of the modes it was added for. Timer.scheduledTimer (or RunLoop.current.add) called in schedule() adds it to the calling thread's run loop, which nobody runs (the same reason a timer scheduled inside DispatchQueue.global().async never fires): add it on the loop's thread, from a block performed there."

    static func firesOnLoopThread() {
        guard let loop = LoopLab.started(), let thread = LoopLab.probe(loop) else { return }
        let once = Locked([Sighting]())
        let ticks = Locked([Sighting]())
        let scheduledAt = LoopLab.now
        guard loop.schedule(after: 0.1, { once.withLock { $0.append(Sighting.here()) } }) else {
            Issue.record("schedule(after:repeating:modes:_:) returned false (refused) on a running thread: it must accept timers until stop().")
            return
        }
        let repeatingAccepted = loop.schedule(after: 0.05, repeating: 0.05, { ticks.withLock { $0.append(Sighting.here()) } })
        #expect(repeatingAccepted, "schedule(after:repeating:modes:_:) refused a repeating timer on a running thread.")
        guard LoopLab.wait(missing: "A timer scheduled to fire after 100 ms had not fired \(LoopLab.prompt) s later. \(neverFiredHint)",
                           unless: { thread.hasEnded ? "The loop's thread ended by itself before the timer fired, without stop(): \(PerformTests.idleHint)" : nil },
                           { !once.current.isEmpty })
        else { return }
        // Time for a second firing of the one-shot and more ticks of the repeating one.
        Thread.sleep(forTimeInterval: 0.3)
        let fired = once.current
        guard let first = fired.first, LoopLab.judge(first, loopThread: thread.id, what: "A timer") else { return }
        #expect(first.at &- scheduledAt >= 90_000_000, "A timer scheduled to fire after 100 ms fired after \(LoopLab.milliseconds(first.at &- scheduledAt)): its fire date is now + delay.")
        #expect(fired.count == 1, "A timer scheduled without repeating fired \(fired.count) times: it fires once.")
        let repeated = ticks.current
        #expect(repeated.count >= 3, "A timer repeating every 50 ms fired \(repeated.count) time(s) in the 400 ms after it was scheduled: expected at least 3 (a repeating timer's interval is `repeating`).")
        #expect(repeated.allSatisfy { $0.thread == thread.id && $0.mode != nil }, "A repeating timer fired on another thread than the loop's.")
    }

    @Test("A default-mode timer is silent while the loop runs another mode; a timer added for both modes fires there")
    func defaultModeTimerSilentInOtherMode() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "timers and a nested run in another mode")
            TimerTests.modes(common: false)
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "timers and a nested run in another mode", crashHint: TimerTests.crashHint)
    }

    @Test("A .common timer fires in a mode added to the run loop's common modes; a default-mode one does not")
    func commonModesTimerFiresWhileTracking() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "a .common timer and a nested run in a common mode")
            TimerTests.modes(common: true)
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "a .common timer and a nested run in a common mode", crashHint: TimerTests.crashHint)
    }

    /// Two timers every 20 ms: `plain` for [.default], `wide` for [.default, tracking] (or for
    /// [.common], with tracking made a common mode). Once both have ticked, a block on the loop
    /// thread runs the loop in the tracking mode for 300 ms. The check's own timer in that mode
    /// keeps the nested run alive and proves it ran.
    static func modes(common: Bool) {
        guard let loop = LoopLab.started(), let thread = LoopLab.probe(loop) else { return }
        let plain = Locked([Sighting]())
        let wide = Locked([Sighting]())
        let wideModes: [RunLoop.Mode] = common ? [.common] : [.default, LoopLab.tracking]
        let wideName = common ? "[.common]" : "[.default, tracking]"
        guard loop.schedule(after: 0.02, repeating: 0.02, modes: [.default], { plain.withLock { $0.append(Sighting.here()) } }),
              loop.schedule(after: 0.02, repeating: 0.02, modes: wideModes, { wide.withLock { $0.append(Sighting.here()) } })
        else {
            Issue.record("schedule(after:repeating:modes:_:) returned false (refused) on a running thread.")
            return
        }
        guard LoopLab.wait(missing: "Two timers repeating every 20 ms, for [.default] and for \(wideName), had not both fired \(LoopLab.prompt) s later (\(plain.current.count) and \(wide.current.count) ticks) while the loop ran in its default mode. Add each timer to the loop thread's run loop in every mode of `modes` (RunLoop.current.add(timer, forMode:) in a block on that thread). \(neverFiredHint)",
                           unless: { thread.hasEnded ? "The loop's thread ended by itself, without stop(): \(PerformTests.idleHint)" : nil },
                           { !plain.current.isEmpty && !wide.current.isEmpty })
        else { return }

        let gesture = Locked<(begin: UInt64, end: UInt64, ownTicks: Int)?>(nil)
        guard loop.perform({ gesture.withLock { $0 = TimerTests.trackForAWhile(makeCommon: common) } }) else {
            Issue.record("perform(_:) refused a block on a running thread.")
            return
        }
        guard LoopLab.wait(seconds: 0.3 + LoopLab.prompt, missing: "A block that runs the loop in another mode for 300 ms had not finished \(0.3 + LoopLab.prompt) s later.",
                           { gesture.current != nil }),
              let (begin, end, ownTicks) = gesture.current
        else { return }
        guard ownTicks >= 2 else {
            Issue.record("The check's own timer in the tracking mode ticked \(ownTicks) time(s) during a 300 ms nested run in that mode: the nested run did not run (is the loop's thread running its run loop?).")
            return
        }
        let trackingName = LoopLab.trackingName
        let plainInTracking = plain.current.filter { $0.mode == trackingName }.count
        let wideInTracking = wide.current.filter { $0.mode == trackingName }.count
        #expect(plainInTracking == 0, "A timer scheduled for [.default] fired \(plainInTracking) time(s) while the loop ran in another mode for 300 ms: add a timer only to the modes it was scheduled for (not to .common: that is how a default-mode timer stays silent while a scroll view tracks).")
        if common {
            #expect(wideInTracking >= 1, "A timer scheduled for [.common] never fired in 300 ms while the loop ran in a mode added to its common modes (the check's own timer in that mode fired \(ownTicks) times): add it with RunLoop.current.add(timer, forMode: .common); .common is a pseudo-mode that stands for every mode in the common set.")
        } else {
            #expect(wideInTracking >= 1, "A timer scheduled for [.default, tracking] never fired in 300 ms while the loop ran in the tracking mode (the check's own timer in that mode fired \(ownTicks) times): add the timer to the run loop once for each mode in `modes`.")
        }
        // The default-mode timer comes back when the nested run ends.
        _ = LoopLab.wait(missing: "A timer scheduled for [.default] did not fire again within \(LoopLab.prompt) s after the loop came back from the other mode.",
                         { plain.current.contains { $0.at > end } })
        let plainDuring = plain.current.filter { $0.at > begin && $0.at < end }.count
        #expect(plainDuring == 0, "A timer scheduled for [.default] fired \(plainDuring) time(s) during the nested run in another mode.")
    }

    /// On the loop's thread: what a scroll view does while the finger moves. Runs the current run
    /// loop in the tracking mode for 300 ms, with a timer of the check's own in that mode (a mode
    /// with no source and no timer returns at once). With `makeCommon`, first adds the tracking mode
    /// to this run loop's common modes, as UIKit does with UITrackingRunLoopMode.
    static func trackForAWhile(makeCommon: Bool) -> (begin: UInt64, end: UInt64, ownTicks: Int) {
        if makeCommon { addToCommonModes(LoopLab.trackingName) }
        let ownTicks = Locked(0)
        let mode = LoopLab.tracking
        let ticker = Timer(timeInterval: 0.02, repeats: true) { _ in ownTicks.withLock { $0 += 1 } }
        RunLoop.current.add(ticker, forMode: mode)
        let begin = LoopLab.now
        let end = Date(timeIntervalSinceNow: 0.3)
        while Date() < end {
            if !RunLoop.current.run(mode: mode, before: end) { break }
        }
        ticker.invalidate()
        return (begin, LoopLab.now, ownTicks.current)
    }

    /// Foundation has no call for this, on any platform: `CFRunLoopAddCommonMode` does it. Its mode
    /// parameter is a `CFRunLoopMode` struct in Apple's Swift overlay
    /// (developer.apple.com/documentation/corefoundation/cfrunloopaddcommonmode(_:_:), and
    /// `CFRunLoopMode.init(_ rawValue: CFString)`), and a plain `CFString` in swift-corelibs-
    /// foundation (`Sources/CoreFoundation/include/CFRunLoop.h`: `typedef CFStringRef CFRunLoopMode`,
    /// imported on Linux without the wrapper). Measured on Linux: a .common timer then fires
    /// during a nested run in that mode.
    static func addToCommonModes(_ name: String) {
        let string = CFStringCreateWithCString(nil, name, CFStringBuiltInEncodings.UTF8.rawValue)
        #if canImport(Darwin)
        CFRunLoopAddCommonMode(CFRunLoopGetCurrent(), CFRunLoopMode(string!))
        #else
        CFRunLoopAddCommonMode(CFRunLoopGetCurrent(), string)
        #endif
    }
}
