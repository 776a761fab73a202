import Dispatch

/// Keeps the thread busy for `microseconds` without giving up its core: widens the window in
/// which an intruder would be seen. (Not `sched_yield` or `usleep`: on a loaded machine a thread
/// that gives up its core may wait milliseconds to get it back, and a check that does it
/// thousands of times takes seconds.)
public func spin(microseconds: UInt64) {
    let end = DispatchTime.now().uptimeNanoseconds + microseconds * 1_000
    while DispatchTime.now().uptimeNanoseconds < end {}
}
