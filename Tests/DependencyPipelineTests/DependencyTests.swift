import DependencyPipeline
import Foundation
import KataTestSupport
import Testing

/// The pipeline's operations depend on each other: a stage runs only after the one before has
/// finished, and reads its input from it. A missing `addDependency`, or a load that finishes
/// before its data arrived, hands the next stage nothing.
@Suite("Dependencies", .exitIsAFailure)
struct DependencyTests {
    @Test("Each stage runs after the one before finished and reads its input from it, also when the load is asynchronous and slow")
    func stagesWaitForTheirInput() {
        let images = (0..<4).map { TestImages.random(width: 3 + $0, height: 2, color: $0 % 2 == 0, plain: $0 < 2) }
        let sources = images.enumerated().map { TestSource("image-\($0.offset)", bytes: $0.element.1, delay: 0.05) }
        let filters: [Filter] = [.invert, .boxBlur(radius: 1)]
        let probe = PipelineProbe()
        let pipeline = ImagePipeline(maxConcurrentOperations: 4)
        pipeline.process(sources, filters: filters, completion: probe.completion)
        guard probe.waitForCall(in: "a pipeline of 4 slow loads", pipeline: pipeline, sources: sources) else { return }
        let expected = images.map { image in describe(.success(filters.reduce(image.0) { ReferenceFilter.apply($1, to: $0) })) }
        let got = probe.results.map(describe)
        #expect(got == expected, "Results were \(got); expected \(expected). A stage that runs before its dependency finished, or that has no dependency, has no input: chain load → decode → filters with addDependency, and let LoadOperation finish only when the source delivered.")
        #expect(sources.allSatisfy { $0.loads.current == 1 }, "Every source should be loaded exactly once; loads: \(sources.map { $0.loads.current }).")
    }

    @Test("With maxConcurrentOperations n, independent items overlap up to n and never beyond")
    func respectsMaxConcurrentOperations() {
        let inFlight = ConcurrencyMeter()
        let image = TestImages.random(width: 2, height: 2, color: false, plain: false).1
        let sources = (0..<12).map { TestSource("item-\($0)", bytes: image, delay: 0.03, meter: inFlight) }
        let probe = PipelineProbe()
        let pipeline = ImagePipeline(maxConcurrentOperations: 3)
        pipeline.process(sources, filters: [.invert], completion: probe.completion)
        guard probe.waitForCall(in: "12 items limited to 3 operations", pipeline: pipeline, sources: sources) else { return }
        #expect(inFlight.totalEntries == 12, "\(inFlight.totalEntries) of 12 sources were loaded.")
        #expect(inFlight.peak <= 3, "\(inFlight.peak) loads were in flight at once with maxConcurrentOperations 3: set the queue's maxConcurrentOperationCount.")
        #expect(inFlight.peak == 3 || inFlight.totalEntries < 12, "At most \(inFlight.peak) loads overlapped; with 12 independent items and a limit of 3 they should overlap 3 at a time. Items are independent chains, not one long chain.")
    }

    @Test("A load failure or corrupt data ends only that item's chain, with its error; the other items are unaffected")
    func failureStopsOnlyItsChain() {
        let good = TestImages.random(width: 3, height: 3, color: true, plain: false)
        let sources = [
            TestSource("good-1", bytes: good.1),
            TestSource("missing", bytes: nil),
            TestSource("corrupt", bytes: Data("P6\n3 3\n255\n".utf8) + Data([1, 2])),
            TestSource("good-2", bytes: good.1),
        ]
        let filters: [Filter] = [.grayscale, .threshold(100)]
        let probe = PipelineProbe()
        let pipeline = ImagePipeline(maxConcurrentOperations: 2)
        pipeline.process(sources, filters: filters, completion: probe.completion)
        guard probe.waitForCall(in: "a pipeline with a failing and a corrupt item", pipeline: pipeline, sources: sources) else { return }
        let results = probe.results
        let expected = filters.reduce(good.0) { ReferenceFilter.apply($1, to: $0) }
        guard results.count == 4 else {
            Issue.record("Expected 4 results, one per source, got \(results.count).")
            return
        }
        #expect(describe(results[0]) == describe(.success(expected)) && describe(results[3]) == describe(.success(expected)),
                "The good items should succeed whatever happens to the others; got \(describe(results[0])) and \(describe(results[3])).")
        if case .failure(.load(let message)) = results[1] {
            #expect(!message.isEmpty, "A .load failure should say what went wrong.")
        } else {
            Issue.record("The item whose load failed should end with .failure(.load(…)), passed on by every later stage; got \(describe(results[1])).")
        }
        if case .failure(.decode) = results[2] {} else {
            Issue.record("The corrupt item should end with .failure(.decode(…)), passed on by the filters; got \(describe(results[2])).")
        }
    }

    /// Why 2 loads of a pipeline limited to 2 operations will never be in flight at once, if that can be seen.
    static func loadsCannotOverlap(_ pipeline: ImagePipeline, sources: [TestSource], probe: PipelineProbe, started: Int) -> String? {
        if !probe.calls.isEmpty {
            return "The pipeline called its completion before 2 of its 6 loads had started (\(started) started): every item must be loaded, decoded and filtered before the completion runs."
        }
        if let queue = Hopeless.queue(of: pipeline, sources: sources), queue.maxConcurrentOperationCount == 1 {
            return "Only \(started) of 6 loads started: the pipeline's queue runs one operation at a time (maxConcurrentOperationCount 1), although maxConcurrentOperations is 2, so 2 held loads can never be in flight at once."
        }
        return Hopeless.pipelineStuck(pipeline, sources: sources)
    }

    @Test("cancelAll(): no stage starts work after it returns, unfinished items complete as .cancelled, the completion fires once")
    func cancelAllEndsEverything() {
        let loads = Locked(0)
        let image = TestImages.random(width: 2, height: 2, color: false, plain: false).1
        let sources = (0..<6).map { TestSource("held-\($0)", bytes: image, holdUntilReleased: true, loads: loads) }
        let probe = PipelineProbe()
        let pipeline = ImagePipeline(maxConcurrentOperations: 2)
        pipeline.process(sources, filters: [.invert, .grayscale], completion: probe.completion)
        // 5 s: at load average 50 (2 cores) the reference can take longer than 3 s to start its
        // first two operations; the rules below end every classic wrong attempt early.
        guard Hopeless.waitUntil(seconds: Deadline.defaultSeconds, in: "a pipeline of 6 held loads", waitingFor: "the first 2 loads starting",
                                 hint: "LoadOperation.main() should call source.load.", { loads.current >= 2 },
                                 unless: { Self.loadsCannotOverlap(pipeline, sources: sources, probe: probe, started: loads.current) })
        else { return }
        let inFlight = Self.loadsInFlight(pipeline, sources: sources)
        pipeline.cancelAll()
        let loadsAtCancel = loads.current
        let ended = probe.waitForCall(seconds: Deadline.promptSeconds, in: "a pipeline after cancelAll()", pipeline: pipeline, sources: sources)
        for source in sources { source.releaseLoad() }  // the loads in flight deliver, too late
        Thread.sleep(forTimeInterval: 0.2)
        #expect(loads.current == loadsAtCancel, "\(loads.current - loadsAtCancel) loads started after cancelAll() returned: every stage must check isCancelled before it starts work.")
        guard ended else { return }
        #expect(probe.results.map(describe) == Array(repeating: describe(.failure(.cancelled)), count: 6),
                "After cancelAll() every unfinished item should be .failure(.cancelled); got \(probe.results.map(describe)). A stage whose dependency was cancelled has no input and must report .cancelled, not run on nothing.")
        #expect(probe.calls.count == 1, "The completion ran \(probe.calls.count) times; it must run exactly once.")
        // The late bytes: once every load in flight at cancelAll() has answered and its callback
        // returned, a cancelled load still has no data.
        let answers = { sources.reduce(0) { $0 + $1.answers.current } }
        guard Deadline.happens(within: Deadline.promptSeconds, { answers() >= loadsAtCancel }) else {
            Issue.record("After cancelAll(), the \(loadsAtCancel) loads in flight got their bytes, too late, and \(Int(Deadline.promptSeconds)) s later only \(answers()) of their callbacks had returned: a load's callback must not wait.")
            return
        }
        for load in inFlight where load.loadedData != nil {
            Issue.record("\(load.name ?? "A LoadOperation") was cancelled while its load was in flight, and after the bytes came, too late, its loadedData was not nil: a cancelled load ignores the bytes that come later (its callback returns before it stores them).")
        }
    }

    /// The LoadOperations executing in the pipeline's queue (their loads in flight), if the queue can be seen.
    static func loadsInFlight(_ pipeline: ImagePipeline, sources: [TestSource]) -> [LoadOperation] {
        let operations = Hopeless.queue(of: pipeline, sources: sources)?.operations ?? []
        return operations.compactMap { $0 as? LoadOperation }.filter(\.isExecuting)
    }
}
