import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One grading at a time per clone: two graders share `.build`, `.kata/runs/` and the history,
/// and a second one would corrupt the first one's results. The lock is an `flock` on
/// `.kata/grader.lock`, which the kernel releases when its holder dies, so a crashed or killed
/// grader never leaves it stuck; the file names the holder's pid for the waiting message.
public final class GradingLock {
    private let descriptor: Int32
    public let file: URL

    private init(descriptor: Int32, file: URL) {
        self.descriptor = descriptor
        self.file = file
    }

    deinit { release() }

    /// Takes the lock. When another grader holds it, says so once through `waiting` (with the
    /// holder's pid) and waits up to `seconds`, or gives up at once when `seconds` is 0.
    public static func acquire(
        layout: KataLayout, seconds: Double, waiting: (_ holder: String) -> Void
    ) throws -> GradingLock {
        try FileManager.default.createDirectory(at: layout.stateDirectory, withIntermediateDirectories: true)
        let file = layout.stateDirectory.appendingPathComponent("grader.lock")
        // Close-on-exec: the suites' processes must not inherit (and so hold) the lock.
        let descriptor = open(file.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw GraderError.cannotRun("cannot open \(layout.relative(file)): \(String(cString: strerror(errno)))") }
        let end = Date(timeIntervalSinceNow: seconds)
        var told = false
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let holder = holderDescription(file)
            if seconds <= 0 || Date() >= end || Interrupt.requested {
                close(descriptor)
                throw GraderError.busy(L("Another grader (\(holder)) is grading this clone; try again when it has finished.",
                                         "另一个评分程序（\(holder)）正在给这个克隆评分；等它结束后再试。"))
            }
            if !told { waiting(holder); told = true }
            usleep(200_000)
        }
        let text = "pid \(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        return GradingLock(descriptor: descriptor, file: file)
    }

    private var released = false

    public func release() {
        guard !released else { return }
        released = true
        _ = ftruncate(descriptor, 0)
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    static func holderDescription(_ file: URL) -> String {
        let text = ((try? String(contentsOf: file, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "pid unknown" : text
    }
}
