import Dispatch
import Foundation

/// Turns the real deadlines learner code computes (`Date(timeIntervalSinceNow:)`,
/// `.now() + 0.5`) into virtual ones: the real time left becomes virtual time left. Real time
/// barely moves during a schedule, so a deadline of "now + 2 s" is two virtual seconds away; but
/// code that reads the real clock again after a wait (`Date() >= deadline`) sees no time pass.
public enum ModelTime {
    public static func deadline(_ date: Date) -> Double? {
        guard date != .distantFuture else { return nil }
        return Scheduler.current?.scheduler.virtualDeadline(secondsFromNow: date.timeIntervalSinceNow)
    }

    public static func deadline(_ time: DispatchTime) -> Double? {
        guard time != .distantFuture else { return nil }
        let now = DispatchTime.now().uptimeNanoseconds
        let left = time.uptimeNanoseconds > now ? Double(time.uptimeNanoseconds - now) / 1e9 : 0
        return Scheduler.current?.scheduler.virtualDeadline(secondsFromNow: left)
    }

    /// The virtual clock, in whole nanoseconds (0 outside a schedule).
    public static var nowNanoseconds: UInt64 {
        UInt64(((Scheduler.current?.scheduler.now ?? 0) * 1e9).rounded())
    }

    /// Seconds from now until `time`, for `asyncAfter`.
    public static func delay(_ time: DispatchTime) -> Double {
        let now = DispatchTime.now().uptimeNanoseconds
        return time.uptimeNanoseconds > now ? Double(time.uptimeNanoseconds - now) / 1e9 : 0
    }
}

/// A closure that crosses to another logical thread. The model runs one thread at a time, so a
/// closure the learner's code did not mark `@Sendable` (the real `async` does not require it on
/// every platform) is never run concurrently with its creator.
public struct ModelClosure: @unchecked Sendable {
    public let run: () -> Void
    public init(_ run: @escaping () -> Void) { self.run = run }
}
