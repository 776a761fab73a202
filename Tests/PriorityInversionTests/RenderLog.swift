import Dispatch
import Foundation
import KataTestSupport
import PriorityInversion
import Synchronization

extension Thumbnail {
    /// What the checks' render function returns for `id`.
    static func expected(_ id: Int) -> Thumbnail {
        Thumbnail(id: id, pixels: [UInt8](repeating: UInt8(truncatingIfNeeded: id &* 37 &+ 11), count: 8))
    }
}

/// The render function the checks hand to the store: it records who called it, on which thread
/// and at which priority, and can hold a render at a gate until the check opens it.
final class RenderLog: @unchecked Sendable {
    struct Call: Sendable {
        let id: Int
        let thread: ObjectIdentifier
        let priority: PriorityReading
    }

    private let log = Locked([Call]())
    private let returned = Locked([Int]())
    private let gate: Gate?

    /// With a gate, the first render of the gate's id waits at it until the check opens it.
    init(gate: Gate? = nil) {
        self.gate = gate
    }

    var calls: [Call] { log.current }

    func calls(of id: Int) -> [Call] { calls.filter { $0.id == id } }

    /// True once a render of `id` has returned to the store.
    func hasReturned(_ id: Int) -> Bool { returned.current.contains(id) }

    func render(_ id: Int) -> Thumbnail {
        log.withLock { $0.append(Call(id: id, thread: ObjectIdentifier(Thread.current), priority: ThreadPriority.current())) }
        gate?.pass(id)
        returned.withLock { $0.append(id) }
        return .expected(id)
    }
}

/// A gate the check holds and opens: the first render of its id waits at it.
final class Gate: @unchecked Sendable {
    let id: Int
    private let semaphore = DispatchSemaphore(value: 0)
    private let entered = DispatchSemaphore(value: 0)
    private let used = Locked(false)
    private let seconds: Double

    init(_ id: Int, seconds: Double = 4) {
        self.id = id
        self.seconds = seconds
    }

    /// Called by the render function: the first render of `id` waits here.
    func pass(_ id: Int) {
        guard id == self.id else { return }
        let first = used.withLock { used -> Bool in
            defer { used = true }
            return !used
        }
        guard first else { return }
        entered.signal()
        _ = semaphore.wait(timeout: .now() + seconds)
    }

    /// Waits at most `seconds` for a render to arrive at the gate.
    func waitForArrival(seconds: Double) -> Bool {
        entered.wait(timeout: .now() + seconds) == .success
    }

    func open() { semaphore.signal() }
}

/// A thread that calls the store the way urgent code does: a block on
/// `DispatchQueue.global(qos: .userInitiated)`.
enum Caller {
    struct Result<Value: Sendable>: Sendable {
        let value: Value?
        let thread: ObjectIdentifier
        let priority: PriorityReading
    }

    /// Runs `body` on a thread of the global queue of `qos` and waits at most `seconds` for it
    /// (blocking is harmless: every check of the store runs in a child process). `returned` is nil
    /// if `body` had not returned by then.
    static func call<Value: Sendable>(
        at qos: DispatchQoS.QoSClass, seconds: Double, _ body: @escaping @Sendable () -> Value
    ) -> (started: (thread: ObjectIdentifier, priority: PriorityReading)?, returned: Value?) {
        let started = Locked<(thread: ObjectIdentifier, priority: PriorityReading)?>(nil)
        let result = Locked<Value?>(nil)
        let done = DispatchSemaphore(value: 0)
        let begun = DispatchSemaphore(value: 0)
        DispatchQueue.global(qos: qos).async {
            started.withLock { $0 = (ObjectIdentifier(Thread.current), ThreadPriority.current()) }
            begun.signal()
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        _ = begun.wait(timeout: .now() + seconds)
        guard done.wait(timeout: .now() + seconds) == .success else { return (started.current, nil) }
        return (started.current, result.current)
    }

    /// The priority of a thread of the global queue of `qos` on this platform.
    static func priority(of qos: DispatchQoS.QoSClass) -> PriorityReading? {
        call(at: qos, seconds: Deadline.promptSeconds) { ThreadPriority.current() }.returned
    }
}

/// A render function that only counts its calls (atomically, without a lock).
final class RenderCounter: Sendable {
    private let calls = Atomic<Int>(0)

    var count: Int { calls.load(ordering: .relaxed) }

    func render(_ id: Int) -> Thumbnail {
        calls.add(1, ordering: .relaxed)
        return .expected(id)
    }
}

/// A weak reference to a store, read from any thread.
final class WeakStore: @unchecked Sendable {
    private let lock = NSLock()
    private weak var store: ThumbnailStore?

    var value: ThumbnailStore? {
        get { lock.lock(); defer { lock.unlock() }; return store }
        set { lock.lock(); store = newValue; lock.unlock() }
    }
}
