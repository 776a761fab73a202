import Dispatch

/// Explores a fixed budget of schedules of one check, numbered from a base: schedule n uses
/// `strategy(forSchedule: n, expectedSteps:)`, so "schedule n" alone replays it.
public struct Explorer: Sendable {
    /// A failing schedule and how to get it again.
    public struct Failure: Sendable {
        public let schedule: Schedule
        public let number: UInt64
        public let expectedSteps: Int
        /// How many schedules ran, this one included.
        public let tried: Int

        /// The decisions as a short string; `Explorer.replay(code:)` runs them again.
        public var code: String { DecisionCode.encode(schedule.decisions) }
    }

    public struct Result: Sendable {
        public let tried: Int
        public let failure: Failure?
        public let seconds: Double
        public let expectedSteps: Int
        public var schedulesPerSecond: Double { Double(tried) / max(seconds, 1e-9) }
    }

    public let budget: Int
    public let first: UInt64
    public let maxSteps: Int
    /// Real seconds one schedule may take before it is reported as stalled.
    public let watchdog: Double

    public init(budget: Int, first: UInt64 = 0, maxSteps: Int = 20_000, watchdog: Double = 10) {
        self.budget = budget
        self.first = first
        self.maxSteps = maxSteps
        self.watchdog = watchdog
    }

    /// PCT places its change points among this many decisions: those of a first, random-walk
    /// schedule (number 0 is always random walk), so the estimate is a function of the code alone.
    public func expectedSteps(_ body: @escaping @Sendable () -> Void) -> Int {
        steps(of: probe(body))
    }

    /// That first schedule: schedule 0 itself (`strategy(forSchedule: 0, …)` is `RandomWalk(seed: 0)`).
    func probe(_ body: @escaping @Sendable () -> Void) -> Schedule {
        Scheduler.run(strategy: RandomWalk(seed: 0), maxSteps: maxSteps, watchdog: watchdog, body)
    }

    func steps(of probe: Schedule) -> Int {
        max(1, probe.decisions.count)
    }

    /// Runs schedules until one fails or the budget is spent. `starting` hears each schedule's
    /// number before it runs (the runner says it, so that a crash names its schedule).
    public func explore(starting: (UInt64) -> Void = { _ in }, _ body: @escaping @Sendable () -> Void) -> Result {
        let start = DispatchTime.now().uptimeNanoseconds
        starting(0)  // the probe is schedule 0
        let probe = probe(body)
        let steps = steps(of: probe)
        var tried = 0
        var failure: Failure?
        for offset in 0..<UInt64(budget) {
            let number = first &+ offset
            if number != 0 { starting(number) }
            // Schedule 0 is the probe: not run twice (a stalled one would cost its watchdog twice).
            let schedule = number == 0 ? probe
                : Scheduler.run(strategy: strategy(forSchedule: number, expectedSteps: steps), maxSteps: maxSteps, watchdog: watchdog, body)
            tried += 1
            if schedule.failed {
                failure = Failure(schedule: schedule, number: number, expectedSteps: steps, tried: tried)
                break
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Result(tried: tried, failure: failure, seconds: seconds, expectedSteps: steps)
    }

    /// Runs schedule `number` again, exactly.
    public func replay(_ number: UInt64, _ body: @escaping @Sendable () -> Void) -> Schedule {
        Scheduler.run(strategy: strategy(forSchedule: number, expectedSteps: expectedSteps(body)), maxSteps: maxSteps, watchdog: watchdog, body)
    }

    /// Runs the decisions of a printed code again.
    public func replay(code: String, _ body: @escaping @Sendable () -> Void) -> Schedule? {
        guard let decisions = DecisionCode.decode(code) else { return nil }
        return Scheduler.run(strategy: Replay(decisions: decisions), maxSteps: maxSteps, watchdog: watchdog, body)
    }
}
