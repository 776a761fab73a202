import DependencyPipeline
import Foundation
import KataTestSupport
import Testing

/// Hundreds of items of random sizes and forms, random load delays and failures, corrupt files,
/// and pipelines cancelled at random moments from another thread, also while `process` runs on
/// its own; every result must match a sequential reference. Isolated so that a crash is a failed
/// check.
@Suite("Pipeline under stress", .exitIsAFailure)
struct PipelineStressTests {
    @Test("150 random items in 6 pipelines, some cancelled at random from another thread, also while process runs: every result matches the sequential reference or is .cancelled where a cancel came")
    func resultsMatchReference() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(seconds: 20, in: "6 pipelines of 25 random items")
            PipelineStressTests.run()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "6 pipelines of 25 random items",
            crashHint: "A crash here usually means a stage read another stage's output while it was being written, the pipeline's list of stages was changed by process while cancelAll() read it on another thread, or the decoder trusted a corrupt header.")
    }

    enum Expected { case image(Bitmap), loadFailure, decodeFailure }

    static func run() {
        var work: [(pipeline: ImagePipeline, sources: [TestSource], expected: [Expected], filters: [Filter], cancelled: Bool)] = []
        let filterChoices: [Filter] = [.invert, .grayscale, .threshold(90), .boxBlur(radius: 1), .boxBlur(radius: 2)]
        for p in 0..<6 {
            let filters = (0..<Int.random(in: 0...3)).map { _ in filterChoices.randomElement()! }
            var sources: [TestSource] = []
            var expected: [Expected] = []
            for i in 0..<25 {
                let (image, file) = TestImages.random(width: Int.random(in: 1...9), height: Int.random(in: 1...9), color: Bool.random(), plain: Bool.random())
                let delay = Double.random(in: 0...0.003)
                switch Int.random(in: 0..<20) {
                case 0:
                    sources.append(TestSource("p\(p)-\(i)", bytes: nil, delay: delay))
                    expected.append(.loadFailure)
                case 1:
                    sources.append(TestSource("p\(p)-\(i)", bytes: file.prefix(file.count / 2), delay: delay))
                    expected.append(.decodeFailure)
                default:
                    sources.append(TestSource("p\(p)-\(i)", bytes: file, delay: delay))
                    expected.append(.image(filters.reduce(image) { ReferenceFilter.apply($1, to: $0) }))
                }
            }
            work.append((ImagePipeline(maxConcurrentOperations: Int.random(in: 1...4)), sources, expected, filters, p % 3 == 2))
        }
        let probes = work.map { _ in PipelineProbe() }
        var cancellers: [DispatchGroup] = []
        for (index, item) in work.enumerated() {
            if item.cancelled {
                guard let canceller = CrossThreadCancel.process(item.pipeline, item.sources, filters: item.filters, completion: probes[index].completion)
                else { return }
                cancellers.append(canceller)
            } else {
                item.pipeline.process(item.sources, filters: item.filters, completion: probes[index].completion)
            }
        }
        for canceller in cancellers {
            guard Deadline.wait(for: canceller, in: "cancelAll() on another thread", waitingFor: "cancelAll() returning") else { return }
        }
        for (index, probe) in probes.enumerated() {
            guard probe.waitForCall(seconds: 5, in: "pipeline \(index) of 6", pipeline: work[index].pipeline, sources: work[index].sources) else { return }
        }
        guard let rounds = crossThreadRounds() else { return }
        Thread.sleep(forTimeInterval: 0.1)  // room for a second completion, here and in the rounds
        let counts = rounds.map(\.calls.count)
        #expect(counts.allSatisfy { $0 == 1 }, "10 pipelines of 3 items, each cancelled from another thread while process ran, called their completions \(counts) times; each must call it exactly once.")
        var problems: [String] = []
        for (index, item) in work.enumerated() {
            let calls = probes[index].calls
            if calls.count != 1 { problems.append("pipeline \(index): completion ran \(calls.count) times") }
            let results = calls.first ?? []
            if results.count != item.expected.count { problems.append("pipeline \(index): \(results.count) results for 25 items"); continue }
            for (i, (result, expected)) in zip(results, item.expected).enumerated() {
                switch (result, expected) {
                case (.failure(.cancelled), _) where item.cancelled: continue
                case (.success(let got), .image(let want)) where got == want: continue
                case (.failure(.load), .loadFailure), (.failure(.decode), .decodeFailure): continue
                default: problems.append("pipeline \(index) item \(i): \(describe(result)), expected \(expected)\(item.cancelled ? " or .cancelled" : "")")
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.count) of 150 results did not match the sequential reference; first: \(problems.first ?? "").")
    }

    /// More meetings of `process` and `cancelAll()` on two threads, on small pipelines: each is
    /// one more chance for the race check to see a list of stages without a lock (with only the
    /// two meetings above, ThreadSanitizer missed it in 10 of 60 runs here), and each must still
    /// end with one completion. Returns their probes once each completion came, nil on a failure.
    static func crossThreadRounds() -> [PipelineProbe]? {
        let (image, file) = TestImages.random(width: 2, height: 2, color: false, plain: false)
        let done = describe(.success(ReferenceFilter.apply(.invert, to: image)))
        let cancelled = describe(.failure(.cancelled))
        var probes: [PipelineProbe] = []
        for round in 1...10 {
            let sources = (0..<3).map { TestSource("round-\(round)-\($0)", bytes: file) }
            let pipeline = ImagePipeline(maxConcurrentOperations: 2)
            let probe = PipelineProbe()
            probes.append(probe)
            guard let canceller = CrossThreadCancel.process(pipeline, sources, filters: [.invert], lastCancelWithin: 1_000, completion: probe.completion),
                  Deadline.wait(for: canceller, in: "cancelAll() on another thread", waitingFor: "cancelAll() returning"),
                  probe.waitForCall(in: "a pipeline cancelled from another thread while process ran", pipeline: pipeline, sources: sources)
            else { return nil }
            let got = probe.results.map(describe)
            guard got.count == 3, got.allSatisfy({ $0 == done || $0 == cancelled }) else {
                Issue.record("A pipeline of 3 items, cancelled from another thread while process ran: its results were \(got), expected \(done) or \(cancelled) for each.")
                return nil
            }
        }
        return probes
    }
}
