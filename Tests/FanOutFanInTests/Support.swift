import Dispatch
import Foundation
import KataTestSupport
import Testing

/// Seconds since a moment, for the short "nothing happened" looks of the checks.
struct Stopwatch {
    private let start = DispatchTime.now().uptimeNanoseconds

    var seconds: Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
}

/// How long a check looks at a quiet exercise before it says that nothing happened: a right
/// implementation starts its work within milliseconds of being asked, an untouched stub never.
let quietSeconds = 0.3

/// A DispatchQueue the suite can recognise from inside a block, independently of the exercise.
final class MarkedQueue: Sendable {
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<Int>()

    init(_ label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: 1)
    }

    /// True when the calling block runs on this queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == 1 }
}

/// Runs `body` on a dedicated thread and tells when it returned: for learner calls that might
/// block their caller, inside an isolated body.
final class Returned: Sendable {
    private let flag = Locked(false)

    init(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [flag] in
            body()
            flag.withLock { $0 = true }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    var yes: Bool { flag.current }
}
