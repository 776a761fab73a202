import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many times the threads of this process have been switched off a CPU so far (they blocked,
/// yielded or were preempted). A thread asleep in a condition wait is switched off once per wait; a
/// thread that polls, once per poll, which shows even on a loaded machine where a poller gets too
/// little CPU time to stand out. POSIX `getrusage(RUSAGE_SELF)` on both platforms: Linux counts
/// each thread's switches into the process's; on macOS the two fields add up to the task's total
/// (xnu, bsd/kern/kern_resource.c, `calcru`: `ru_nivcsw` is the task's switches less `ru_nvcsw`).
/// Neither platform offers a per-thread count to both (Linux's `RUSAGE_THREAD` does not exist on
/// macOS), so the check measures a window in which the rest of the process is quiet.
public func processContextSwitches() -> Int {
    var usage = rusage()
    // RUSAGE_SELF is 0 on both (glibc's `enum __rusage_who`, xnu's bsd/sys/resource.h), but Swift
    // imports it as an enum on Linux and as an Int32 on macOS: the literal compiles on both.
    guard getrusage(0, &usage) == 0 else { return 0 }
    return Int(usage.ru_nvcsw) + Int(usage.ru_nivcsw)
}
