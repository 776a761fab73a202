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
    /// random pause of up to 20 ms, the thread calls `cancelAll()` once more (a cancel at a random
    /// moment of the work). The returned group is left when that last call has returned; nil, with
    /// the miss recorded, when the thread's first call never returned.
    static func process(
        _ pipeline: ImagePipeline, _ sources: [TestSource], filters: [Filter],
        completion: @escaping @Sendable ([Result<Bitmap, PipelineError>]) -> Void
    ) -> DispatchGroup? {
        let shared = Shared(pipeline)
        let calls = Locked(0)
        let processReturned = Locked(false)
        let done = ThreadGang.spawn {
            repeat {
                shared.pipeline.cancelAll()
                calls.withLock { $0 += 1 }
            } while !processReturned.current
            usleep(UInt32.random(in: 0...20_000))
            shared.pipeline.cancelAll()
        }
        let running = Deadline.waitUntil(
            seconds: Deadline.promptSeconds, in: "cancelAll() on another thread", waitingFor: "a first cancelAll() returning",
            hint: "cancelAll() before any process call has nothing to cancel and should return at once.") { calls.current >= 1 }
        guard running else {
            processReturned.withLock { $0 = true }
            return nil
        }
        pipeline.process(sources, filters: filters, completion: completion)
        processReturned.withLock { $0 = true }
        return done
    }

    /// The pipeline, handed to the other thread whatever the learner's class declares about
    /// `Sendable`: sharing it between threads is what this check is about.
    private final class Shared: @unchecked Sendable {
        let pipeline: ImagePipeline
        init(_ pipeline: ImagePipeline) { self.pipeline = pipeline }
    }
}
