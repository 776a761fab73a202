import Dispatch
import Foundation
import KataTestSupport
import Testing

/// The suite's own mark on the main queue: a check asks it where a block ran, independently of
/// how the exercise asks the same question.
enum MainQueueMark {
    static let key = DispatchSpecificKey<String>()

    /// Called first in every isolated body that looks at the main queue.
    static func install() {
        DispatchQueue.main.setSpecific(key: key, value: "main")
    }

    /// True when the calling block runs on the main queue.
    static var here: Bool { DispatchQueue.getSpecific(key: key) == "main" }

    /// Proves that this process drains its main queue (Swift Testing's entry point ends in
    /// dispatchMain() on Linux and in the main run loop on macOS); records why not otherwise, so
    /// that a check never blames the learner's code for a main queue that nobody runs.
    static func isDrained() -> Bool {
        let ran = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { ran.signal() }
        if ran.wait(timeout: .now() + 3) == .success { return true }
        Issue.record("This test process did not run a block put on the main queue within 3 s: nothing drains its main queue here, so the check cannot judge your code.")
        return false
    }
}

/// Tells when the closures that hold one of its tokens have all been released.
final class ReleaseWatch: Sendable {
    private let released = Locked(false)

    final class Token: Sendable {
        let watch: ReleaseWatch
        init(_ watch: ReleaseWatch) { self.watch = watch }
        deinit { watch.released.withLock { $0 = true } }
    }

    var isReleased: Bool { released.current }

    /// `closure`, holding a token: the watch says released once the closure is gone.
    func tie<A, R>(_ closure: @escaping @Sendable (A) -> R) -> @Sendable (A) -> R {
        let token = Token(self)
        return { argument in withExtendedLifetime(token) { closure(argument) } }
    }

    func tie<R>(_ closure: @escaping @Sendable () -> R) -> @Sendable () -> R {
        let token = Token(self)
        return { withExtendedLifetime(token) { closure() } }
    }
}

/// Lines an isolated body writes on standard error, so that the parent knows how far it came
/// before the child ended.
enum Marker {
    static func say(_ marker: String) {
        FileHandle.standardError.write(Data((marker + "\n").utf8))
    }

    static func said(_ marker: String, in ending: ExitTest.Result) -> Bool {
        String(decoding: ending.standardErrorContent, as: UTF8.self).contains(marker)
    }
}

/// One open file descriptor: its number and what it refers to. The system gives a closed number
/// to the next file opened, by any thread (libdispatch, for one, creates a timer's descriptor the
/// first time a timer of that clock is armed: swift-corelibs-libdispatch, src/event/event_epoll.c,
/// `_dispatch_timeout_program`), so a number alone cannot tell the channel's pipe from a file opened
/// after it was closed.
struct OpenDescriptor: Hashable {
    let number: Int32
    let device: UInt64
    let inode: UInt64
    /// O_RDONLY or O_WRONLY: the two ends of one pipe share a device and an inode.
    let access: Int32
    /// Whether it is a pipe or a socket, the channel's kinds of descriptor.
    let isChannelKind: Bool
}

/// The process's open file descriptors below 1024, for the channel's lifetime checks.
enum Descriptors {
    static func open() -> Set<OpenDescriptor> {
        Set((Int32(0)..<1024).compactMap { number -> OpenDescriptor? in
            let flags = fcntl(number, F_GETFL)
            var info = stat()
            guard flags != -1, fstat(number, &info) == 0 else { return nil }
            // The file type bits and the FIFO and socket types, as POSIX numbers them on both platforms.
            let kind = UInt32(info.st_mode) & 0o170000
            return OpenDescriptor(
                number: number, device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(info.st_ino),
                access: flags & O_ACCMODE, isChannelKind: kind == 0o010000 || kind == 0o140000)
        })
    }

    /// The pipes and sockets opened since `before`: the channel's descriptors.
    static func opened(since before: Set<OpenDescriptor>) -> Set<OpenDescriptor> {
        open().subtracting(before).filter(\.isChannelKind)
    }

    /// Makes libdispatch create what it keeps for its read sources (its event loop's own
    /// descriptors) before a check counts descriptors.
    static func warmUp() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        let done = DispatchSemaphore(value: 0)
        let source = DispatchSource.makeReadSource(fileDescriptor: ends[0], queue: DispatchQueue(label: "warm-up"))
        source.setCancelHandler { close(ends[0]); done.signal() }
        source.resume()
        source.cancel()
        close(ends[1])
        _ = done.wait(timeout: .now() + 2)
    }
}

/// CPU seconds this process has used so far (user and system).
func cpuSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)  // Glibc imports RUSAGE_SELF as an enum case
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return user + system
}

/// Turns a child's ending into a failed check, with the suite's own words for the signals it
/// expects a wrong attempt to raise (SIGPIPE, SIGUSR1), which `IsolatedCheck` does not name.
@discardableResult
func explain(_ ending: ExitTest.Result?, in place: String, crashHint: String,
             signals: [CInt: String] = [:], sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
    if let ending, case .signal(let signal) = ending.exitStatus, let words = signals[signal] {
        Issue.record(Comment(rawValue: "Ended by signal \(signal) in \(place): \(words)"), sourceLocation: sourceLocation)
        return false
    }
    return IsolatedCheck.explain(ending, in: place, crashHint: crashHint, sourceLocation: sourceLocation)
}
