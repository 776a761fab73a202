import Dispatch
import Foundation

/// What a puzzle prints with: `print(3)` records the label 3.
///
/// The puzzles never call Swift's `print`: they record their labels here, so that a run can be
/// read back as one string ("2413") and compared with a prediction. A printer is thread-safe; the
/// order of the labels is the order in which `print` took its lock, which is the order in which the
/// statements ran.
///
/// The jitter hook: `pause` runs before and after every label. The suite passes random short
/// pauses (nothing, a yield, a few microseconds, rarely most of a millisecond) so that orders which
/// a quiet machine almost never shows, a block starting late or a caller being descheduled between
/// two statements, occur within a few thousand runs. Pausing changes *when* statements run, never
/// the rules that order them: anything a paused run prints, an unpaused run may print too.
public final class Printer: @unchecked Sendable {
    private let lock = NSLock()
    private var labels: [UInt8] = []
    private let expected: Int
    private let pause: @Sendable () -> Void
    private let echo: (@Sendable (UInt8) -> Void)?
    private let complete = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - count: how many labels make a complete run: `waitUntilComplete` returns once that many
    ///     were printed.
    ///   - pause: the jitter hook, called before and after every label.
    ///   - echo: called with each label, in order, while the printer's lock is held (a child
    ///     process writes them to its standard output, so that its parent sees what was printed
    ///     before a deadlock or a crash stopped it).
    public init(expecting count: Int, pause: @escaping @Sendable () -> Void = {}, echo: (@Sendable (UInt8) -> Void)? = nil) {
        self.expected = count
        self.pause = pause
        self.echo = echo
    }

    /// Prints one single-digit label.
    public func print(_ label: Int) {
        precondition((0...9).contains(label), "labels are single digits")
        pause()
        lock.lock()
        labels.append(UInt8(label))
        echo?(UInt8(label))
        let count = labels.count
        lock.unlock()
        if count == expected { complete.signal() }
        pause()
    }

    /// Everything printed so far, e.g. "2413".
    public var output: String {
        lock.lock()
        defer { lock.unlock() }
        return String(labels.map { Character(String($0)) })
    }

    /// How many labels were printed so far.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return labels.count
    }

    /// Waits at most `seconds` for the run to be complete; false if it was not.
    public func waitUntilComplete(seconds: Double) -> Bool {
        if count >= expected { return true }
        return complete.wait(timeout: .now() + seconds) == .success
    }
}
