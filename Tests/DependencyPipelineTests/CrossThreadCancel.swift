import DependencyPipeline
import Foundation
import KataTestSupport
import Testing

/// `cancelAll()` on a thread of its own while `process` runs on the caller's: the two calls
/// overlap for real, so that a pipeline whose list of stages has no lock has a data race there
/// that ThreadSanitizer (the race check) reports, or a crash in the isolated check.
enum CrossThreadCancel {
    /// Starts a thread that calls `cancelAll()` over and over; once one of its calls has returned,
    /// calls `process` here while that thread goes on, until `process` has returned; then, after a
    /// random pause of up to `pause` µs, the thread calls `cancelAll()` once more (a cancel at a
    /// random moment of the work). The returned group is left when that last call has returned; nil, with
    /// the miss recorded, when the thread's first call never returned.
    ///
    /// The meeting inside `process`: the first time it reads a source's name on this thread, it
    /// waits (up to 1 s) until a `cancelAll()` of the other thread is under way, so that call runs
    /// while `process` builds and records its chains, even when a busy machine would have left
    /// that thread waiting for a core the whole time.
    static func process(
        _ pipeline: ImagePipeline, _ sources: [TestSource], filters: [Filter], lastCancelWithin pause: UInt32 = 20_000,
        completion: @escaping @Sendable ([Result<Bitmap, PipelineError>]) -> Void
    ) -> DispatchGroup? {
        let shared = Shared(pipeline)
        let begun = Locked(0)
        let calls = Locked(0)
        let processReturned = Locked(false)
        let done = ThreadGang.spawn {
            repeat {
                begun.withLock { $0 += 1 }
                shared.value.cancelAll()
                calls.withLock { $0 += 1 }
            } while !processReturned.current
            usleep(UInt32.random(in: 0...pause))
            shared.value.cancelAll()
        }
        let running = Deadline.waitUntil(
            seconds: Deadline.promptSeconds, in: "cancelAll() on another thread", waitingFor: "a first cancelAll() returning",
            hint: "cancelAll() before any process call has nothing to cancel and should return at once.") { calls.current >= 1 }
        guard running else {
            processReturned.withLock { $0 = true }
            return nil
        }
        let processThread = Shared(Thread.current)
        let met = Locked(false)
        let meeting: @Sendable () -> Void = {
            guard Thread.current === processThread.value else { return }
            let first = met.withLock { wasMet -> Bool in
                defer { wasMet = true }
                return !wasMet
            }
            guard first else { return }
            let before = begun.current
            if before > calls.current { return }  // a call is under way, during process
            _ = Deadline.happens(within: 1) { begun.current > before }
        }
        for source in sources { source.onNameRead.withLock { $0 = meeting } }
        pipeline.process(sources, filters: filters, completion: completion)
        for source in sources { source.onNameRead.withLock { $0 = nil } }
        processReturned.withLock { $0 = true }
        return done
    }

    /// An object handed to another thread: the pipeline, whatever the learner's class declares
    /// about `Sendable` (sharing it between threads is what this check is about), or a thread.
    private final class Shared<Value: AnyObject>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }
}
