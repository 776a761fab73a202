import DependencyPipeline
import Foundation
import KataTestSupport
import Testing

/// A pipeline whose owner lets go of it while its items are in flight: the work it accepted still
/// ends with one completion, nothing crashes, and the pipeline is freed once the work is done.
/// Isolated so that a crash (an operation reaching a freed pipeline) is a failed check.
@Suite("Letting go of a pipeline", .exitIsAFailure)
struct ReleaseTests {
    static let place = "a pipeline let go while its items are in flight"

    @Test("A pipeline let go while its items are in flight still calls its completion once, each item done or .cancelled, and is freed once the work ends")
    func releasedPipelineFinishesItsWork() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: 20, in: ReleaseTests.place)
            ReleaseTests.run()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: Self.place,
            crashHint: "A crash after the pipeline was let go usually means that an operation used the pipeline after it was freed ([unowned self] in a block or completion that runs later). Give the operations what they need (the completion, the chains' last stages) instead of self.")
    }

    static func run() {
        let loads = Locked(0)
        let image = TestImages.random(width: 3, height: 2, color: true, plain: false)
        let filters: [Filter] = [.invert]
        let done = describe(.success(filters.reduce(image.0) { ReferenceFilter.apply($1, to: $0) }))
        let sources = (0..<6).map { TestSource("let-go-\($0)", bytes: image.1, holdUntilReleased: true, loads: loads) }
        let probe = PipelineProbe()
        let released = WeakPipeline()
        do {
            let pipeline = ImagePipeline(maxConcurrentOperations: 2)
            released.value = pipeline
            pipeline.process(sources, filters: filters, completion: probe.completion)
            guard Hopeless.waitUntil(seconds: Deadline.defaultSeconds, in: place, waitingFor: "the first 2 loads starting",
                                     hint: "LoadOperation.main() should call source.load.", { loads.current >= 2 },
                                     unless: { DependencyTests.loadsCannotOverlap(pipeline, sources: sources, probe: probe, started: loads.current) })
            else { return }
            withExtendedLifetime(pipeline) {}
        }
        // The check's last reference is gone: 2 loads in flight, 4 items waiting. Now the loads answer.
        for source in sources { source.releaseLoad() }
        let ended = Hopeless.waitUntil(
            seconds: Deadline.defaultSeconds, limit: 4 * Deadline.defaultSeconds, in: place, waitingFor: "the pipeline's completion",
            hint: "Work a pipeline accepted must still end with its completion when the pipeline is let go: the operations keep running on the queue.",
            progress: { Hopeless.progress(nil, sources: sources) }, { !probe.calls.isEmpty },
            unless: { Self.completionLost(released: released, sources: sources) })
        guard ended else { return }
        Thread.sleep(forTimeInterval: 0.1)  // room for a second completion
        #expect(probe.calls.count == 1, "The pipeline was let go while its items were in flight, and its completion ran \(probe.calls.count) times; it must run exactly once.")
        let got = probe.results.map(describe)
        let cancelled = describe(.failure(.cancelled))
        #expect(got.count == 6 && got.allSatisfy { $0 == done || $0 == cancelled },
                "The pipeline was let go while its items were in flight; its results were \(got), expected \(done) for each of the 6 items (or \(cancelled) if letting go cancels them).")
        // The reference's pipeline is freed when the check lets go of it; one that its running
        // operations hold is freed once they end. Either way, soon after the completion.
        let freed = Deadline.happens(within: Deadline.promptSeconds) { released.value == nil }
        #expect(freed, "The pipeline was let go while its items were in flight; its completion ran, and \(Int(Deadline.promptSeconds)) s later the pipeline was still alive: something its work left behind still holds it, such as a cycle pipeline → a list it keeps → operation → closure → pipeline. Let the operations' blocks capture what they need (the completion, the chains' last stages), not self, or let the pipeline drop its finished operations.")
    }

    /// Why the completion of a pipeline that was let go will never come, if that can be seen.
    static func completionLost(released: WeakPipeline, sources: [TestSource]) -> String? {
        guard let queue = Hopeless.queue(of: nil, sources: sources) else { return nil }
        if queue.operationCount == 0, released.value == nil {
            return "The pipeline was let go while its items were in flight; it was freed, its OperationQueue ran out of operations, and the completion never ran. Work a pipeline accepted must still end with its completion after its owner lets go: the completion must not depend on the pipeline being alive (a [weak self] that returns when self is gone skips it)."
        }
        return Hopeless.pipelineStuck(nil, sources: sources)
    }
}

/// A weak reference to a pipeline: how a check proves that it was freed.
final class WeakPipeline: @unchecked Sendable {
    private let lock = NSLock()
    private weak var pipeline: ImagePipeline?

    init() {}

    var value: ImagePipeline? {
        get { lock.lock(); defer { lock.unlock() }; return pipeline }
        set { lock.lock(); pipeline = newValue; lock.unlock() }
    }
}
