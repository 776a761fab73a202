#if KATA_MODEL
import Dispatch
import KataModel

/// Model twin of `DispatchTime`, on the model's virtual clock: `.now()` is the schedule's
/// virtual time, so `.now() + 0.5` is a deadline half a virtual second away, the same on every
/// run (a real `.now()` would move by however long the schedule took, and with it the order in
/// which timers fire). Only what deadlines need: `now()`, `distantFuture`, `+`/`-` with seconds or
/// a `DispatchTimeInterval`, comparison, `uptimeNanoseconds`.
public struct DispatchTime: Comparable, Sendable {
    public let uptimeNanoseconds: UInt64

    public init(uptimeNanoseconds: UInt64) {
        self.uptimeNanoseconds = uptimeNanoseconds
    }

    public static func now() -> DispatchTime {
        DispatchTime(uptimeNanoseconds: ModelTime.nowNanoseconds)
    }

    public static let distantFuture = DispatchTime(uptimeNanoseconds: .max)

    /// Virtual seconds since the schedule started; nil for the distant future.
    var virtualSeconds: Double? {
        uptimeNanoseconds == .max ? nil : Double(uptimeNanoseconds) / 1e9
    }

    /// Virtual seconds from now until this time, for `asyncAfter` (0 when past).
    var modelDelay: Double {
        guard let virtualSeconds else { return .infinity }
        return max(0, virtualSeconds - Double(ModelTime.nowNanoseconds) / 1e9)
    }

    public static func < (lhs: DispatchTime, rhs: DispatchTime) -> Bool {
        lhs.uptimeNanoseconds < rhs.uptimeNanoseconds
    }

    public static func + (time: DispatchTime, seconds: Double) -> DispatchTime {
        time.adding(nanoseconds: seconds * 1e9)
    }

    public static func - (time: DispatchTime, seconds: Double) -> DispatchTime {
        time.adding(nanoseconds: -seconds * 1e9)
    }

    public static func + (time: DispatchTime, interval: DispatchTimeInterval) -> DispatchTime {
        time.adding(nanoseconds: interval.modelNanoseconds)
    }

    public static func - (time: DispatchTime, interval: DispatchTimeInterval) -> DispatchTime {
        time.adding(nanoseconds: -interval.modelNanoseconds)
    }

    private func adding(nanoseconds: Double) -> DispatchTime {
        guard uptimeNanoseconds != .max, nanoseconds.isFinite else { return .distantFuture }
        let sum = Double(uptimeNanoseconds) + nanoseconds
        if sum <= 0 { return DispatchTime(uptimeNanoseconds: 0) }
        if sum >= Double(UInt64.max) { return .distantFuture }
        return DispatchTime(uptimeNanoseconds: UInt64(sum.rounded()))
    }
}

extension DispatchTimeInterval {
    /// The interval in nanoseconds; `.never` is infinite.
    var modelNanoseconds: Double {
        switch self {
        case .seconds(let n): Double(n) * 1e9
        case .milliseconds(let n): Double(n) * 1e6
        case .microseconds(let n): Double(n) * 1e3
        case .nanoseconds(let n): Double(n)
        case .never: .infinity
        @unknown default: .infinity
        }
    }
}
#endif
