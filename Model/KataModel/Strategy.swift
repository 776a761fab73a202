/// Chooses, at each switch point, which of the threads that can run goes next; and, where a twin
/// must pick among waiters (`signal()` with several threads waiting), which one.
public protocol Strategy {
    /// A short name for the report ("random walk", "PCT d=2").
    var name: String { get }
    /// Index into `enabled` (thread ids in creation order, never empty) of the thread to run.
    /// `running` is the thread that reached this switch point; `step` counts decisions so far.
    mutating func pick(among enabled: [Int], running: Int?, step: Int) -> Int
    /// An index in 0..<count.
    mutating func choose(_ count: Int) -> Int
}

/// Every decision uniformly at random.
public struct RandomWalk: Strategy {
    private var random: SplitMix64
    public let name = "random walk"

    public init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    public mutating func pick(among enabled: [Int], running: Int?, step: Int) -> Int {
        random.below(enabled.count)
    }

    public mutating func choose(_ count: Int) -> Int {
        random.below(count)
    }
}

/// Probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS 2010):
/// each thread gets a random priority when first seen and the highest-priority thread that can
/// run always runs; at `changePoints` steps chosen at random in 1...expectedSteps, the thread
/// running then drops below every initial priority. A bug that needs d ordering constraints is
/// found with probability at least 1/(n·k^(d-1)); `changePoints` is that d−1.
public struct PCT: Strategy {
    private var random: SplitMix64
    private var priorities: [Int: Double] = [:]
    private var changeSteps: [Int]
    public let name: String

    public init(seed: UInt64, changePoints: Int, expectedSteps: Int) {
        random = SplitMix64(seed: seed)
        let steps = max(1, expectedSteps)
        var chosen: [Int] = []
        for _ in 0..<changePoints { chosen.append(1 + random.below(steps)) }
        changeSteps = chosen
        name = "PCT, \(changePoints) change point\(changePoints == 1 ? "" : "s")"
    }

    private mutating func priority(of thread: Int) -> Double {
        if let known = priorities[thread] { return known }
        // Initial priorities lie above every change-point priority (0..<changePoints).
        let fresh = Double(changeSteps.count) + 1 + Double(random.below(1 << 30)) / Double(1 << 30)
        priorities[thread] = fresh
        return fresh
    }

    public mutating func pick(among enabled: [Int], running: Int?, step: Int) -> Int {
        if let running, let index = changeSteps.firstIndex(of: step) {
            priorities[running] = Double(index)
        }
        var best = 0
        var bestPriority = -Double.infinity
        for (index, thread) in enabled.enumerated() {
            let p = priority(of: thread)
            if p > bestPriority {
                best = index
                bestPriority = p
            }
        }
        return best
    }

    public mutating func choose(_ count: Int) -> Int {
        random.below(count)
    }
}

/// Replays a recorded list of decisions (the short string a failure prints); past its end, always
/// the first choice.
public struct Replay: Strategy {
    private let decisions: [Int]
    private var position = 0
    public let name = "replay"

    public init(decisions: [Int]) {
        self.decisions = decisions
    }

    private mutating func nextDecision(_ count: Int) -> Int {
        defer { position += 1 }
        guard position < decisions.count else { return 0 }
        return min(decisions[position], count - 1)
    }

    public mutating func pick(among enabled: [Int], running: Int?, step: Int) -> Int {
        nextDecision(enabled.count)
    }

    public mutating func choose(_ count: Int) -> Int {
        nextDecision(count)
    }
}

/// The strategy a schedule number stands for: numbers cycle through random walk and PCT with
/// 1, 2 and 3 change points, so one number (plus the exploration's step estimate) is the whole
/// schedule.
public func strategy(forSchedule number: UInt64, expectedSteps: Int) -> any Strategy {
    let kind = Int(number % 4)
    let seed = number / 4 &* 0x2545_F491_4F6C_DD1D &+ UInt64(kind)
    if kind == 0 { return RandomWalk(seed: seed) }
    return PCT(seed: seed, changePoints: kind, expectedSteps: expectedSteps)
}

/// Decisions as a short string, one base-36 digit each (a decision index is below 36 in any
/// model check: it is a number of threads or of waiters); runs of the same digit are written
/// `digit*count`.
public enum DecisionCode {
    private static let digits = Array("0123456789abcdefghijklmnopqrstuvwxyz")

    public static func encode(_ decisions: [Int]) -> String {
        var out = ""
        var index = 0
        while index < decisions.count {
            var end = index
            while end < decisions.count && decisions[end] == decisions[index] { end += 1 }
            let digit = digits[min(decisions[index], 35)]
            let run = end - index
            out += run >= 4 ? "\(digit)*\(run)." : String(repeating: digit, count: run)
            index = end
        }
        return out
    }

    public static func decode(_ code: String) -> [Int]? {
        var out: [Int] = []
        var chars = Array(code)[...]
        while let c = chars.first {
            chars = chars.dropFirst()
            guard let value = digits.firstIndex(of: c) else { return nil }
            if chars.first == "*" {
                chars = chars.dropFirst()
                let number = chars.prefix { $0 != "." }
                chars = chars.dropFirst(number.count + 1)
                guard let run = Int(String(number)) else { return nil }
                out += Array(repeating: value, count: run)
            } else {
                out.append(value)
            }
        }
        return out
    }
}
