import Dispatch
#if os(Linux)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How urgent the calling thread is, as the platform shows it.
public struct PriorityReading: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Higher is more urgent. On Linux, minus the thread's nice value; on Apple platforms, the
    /// same scale for the thread's QoS class (`.utility` -2, `.default` 0, `.userInitiated` 2).
    public let rank: Int
    public let description: String

    public static func < (a: PriorityReading, b: PriorityReading) -> Bool { a.rank < b.rank }
}

/// Reads the calling thread's priority.
///
/// - Linux: the nice value. libdispatch gives each pool of worker threads the nice value of its
///   QoS class (`.background` 10, `.utility` 2, `.default` 0, `.userInitiated` -2, by
///   `setpriority` when a worker starts: swift-corelibs-libdispatch, `src/queue.c`,
///   `_dispatch_worker_thread`, values in `src/shims/priority.h`). It does not change them for a
///   block's own QoS, nor while someone waits for the thread. Without the right to raise a
///   priority (an unprivileged user), the `.userInitiated` workers stay at nice 0.
/// - Apple platforms: the QoS class the thread runs at (`qos_class_self()`, `pthread/qos.h`).
public enum ThreadPriority {
    public static func current() -> PriorityReading {
        #if os(Linux)
        // getpriority(2): on Linux the nice value is an attribute of each thread, and `who` 0
        // names the calling thread (what libdispatch itself relies on when it sets a worker's).
        errno = 0
        let nice = Int(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
        let names = [10: ".background", 2: ".utility", 0: ".default", -2: ".userInitiated"]
        let name = names[nice].map { " (\($0)'s pool)" } ?? ""
        return PriorityReading(rank: -nice, description: "nice \(nice)\(name)")
        #elseif canImport(Darwin)
        let qos = DispatchQoS.QoSClass(rawValue: qos_class_self()) ?? .unspecified
        return reading(for: qos)
        #else
        return PriorityReading(rank: 0, description: "unknown on this platform")
        #endif
    }

    #if canImport(Darwin)
    static func reading(for qos: DispatchQoS.QoSClass) -> PriorityReading {
        switch qos {
        case .background: PriorityReading(rank: -10, description: "QoS .background")
        case .utility: PriorityReading(rank: -2, description: "QoS .utility")
        case .default: PriorityReading(rank: 0, description: "QoS .default")
        case .userInitiated: PriorityReading(rank: 2, description: "QoS .userInitiated")
        case .userInteractive: PriorityReading(rank: 4, description: "QoS .userInteractive")
        case .unspecified: PriorityReading(rank: 0, description: "QoS unspecified")
        @unknown default: PriorityReading(rank: 0, description: "QoS \(qos)")
        }
    }
    #endif
}
