import Dispatch
import Foundation
import KataTestSupport
import Testing
import ThrottledDownloader

/// A transport the checks control: it counts fetches in flight and decides per URL whether to
/// answer after a delay, fail, hold the answer until the check releases it, or never answer.
final class FakeTransport: Transport, @unchecked Sendable {
    enum Behaviour: Sendable {
        case succeed(after: Double)
        case fail(after: Double)
        /// Answers only when the check calls `releaseHeld()`.
        case hold
        /// Never answers within the downloader's timeout; answers twice `after` seconds later.
        case lateTwice(after: Double)
        /// Answers only when the check calls `answerLateTwice()`, and then twice.
        case holdThenAnswerTwice
    }

    struct FakeError: Error, CustomStringConvertible {
        let url: URL
        var description: String { "fake failure for \(url.lastPathComponent)" }
    }

    /// Fetches in flight, as the transport sees them (held and late ones excluded from the
    /// meter when `meterHeldAndLate` is false).
    let meter = ConcurrencyMeter()
    let fetched = Locked([URL]())
    private let held = Locked([@Sendable () -> Void]())
    private let behaviour: @Sendable (URL) -> Behaviour
    private let answers = DispatchQueue(label: "fake-transport", attributes: .concurrent)

    init(_ behaviour: @escaping @Sendable (URL) -> Behaviour) {
        self.behaviour = behaviour
    }

    static func body(for url: URL) -> Data { Data("body of \(url.absoluteString)".utf8) }

    func fetch(_ url: URL, completion: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        fetched.withLock { $0.append(url) }
        switch behaviour(url) {
        case .succeed(let delay):
            meter.enter()
            answers.asyncAfter(deadline: .now() + delay) { [meter] in
                meter.leave()
                completion(.success(FakeTransport.body(for: url)))
            }
        case .fail(let delay):
            meter.enter()
            answers.asyncAfter(deadline: .now() + delay) { [meter] in
                meter.leave()
                completion(.failure(FakeError(url: url)))
            }
        case .hold:
            meter.enter()
            held.withLock { $0.append { [meter] in meter.leave(); completion(.success(FakeTransport.body(for: url))) } }
        case .lateTwice(let delay):
            answers.asyncAfter(deadline: .now() + delay) {
                completion(.success(Data("late".utf8)))
                completion(.success(Data("duplicate".utf8)))
            }
        case .holdThenAnswerTwice:
            late.withLock { $0.append(completion) }
        }
    }

    private let late = Locked([@Sendable (Result<Data, any Error>) -> Void]())

    /// Answers every `.holdThenAnswerTwice` fetch, twice: a late answer and a duplicate.
    func answerLateTwice() {
        for completion in late.current {
            completion(.success(Data("late".utf8)))
            completion(.success(Data("duplicate".utf8)))
        }
    }

    /// Answers every held fetch (late, if the downloader already gave up on them).
    func releaseHeld() {
        let waiting = held.withLock { list -> [@Sendable () -> Void] in
            defer { list.removeAll() }
            return list
        }
        for answer in waiting { answer() }
    }

    var fetchCount: Int { fetched.current.count }
}

/// Records the calls of a download's completion, and knows whether anyone still holds it.
final class CompletionProbe: @unchecked Sendable {
    let recorder = CallRecorder<[Result<Data, DownloadError>]>()
    private let liveness = Liveness()

    /// The completion to pass to `download`: hand it out once per probe.
    var completion: @Sendable ([Result<Data, DownloadError>]) -> Void {
        liveness.tie("the completion") { [recorder] (results: [Result<Data, DownloadError>]) in recorder.record(results) }
    }

    static let hint = "completion runs once every URL has a result: leave the DispatchGroup exactly once per URL."

    /// Inside an isolated check: waits for the first call, blocking.
    @discardableResult
    func waitForCall(seconds: Double = 5, in place: String) -> Bool {
        recorder.waitForFirstCall(seconds: seconds, in: place, waitingFor: "the download's completion", hint: Self.hint)
    }

    /// Waits for the first call without blocking a thread; gives up at once when no one holds
    /// the completion any more (it can never be called) or when `hopeless` says why.
    @discardableResult
    func call(seconds: Double = Deadline.promptSeconds, in place: String, unless hopeless: () -> String? = { nil }) async -> Bool {
        await Await.until(seconds: seconds, in: place, waitingFor: "the download's completion", hint: Self.hint,
                          unless: { cannotBeCalled ?? hopeless() }, { wasCalled })
    }

    var wasCalled: Bool { !recorder.calls.isEmpty }

    /// Why the completion can never be called: download returned and no one holds it.
    var cannotBeCalled: String? {
        guard !liveness.isHeld("the completion"), !wasCalled else { return nil }
        return "download(_:completion:) returned, its completion has not run, and the downloader no longer holds it: it can never run. Keep each call's completion until every URL has a result."
    }

    /// Why a check waiting for fetches to start can stop waiting: the completion already ran.
    func calledBeforeFetches(_ transport: FakeTransport) -> String? {
        guard let results = recorder.first else { return nil }
        return "The download's completion ran (with \(results.count) results, first \(results.first.map(describe) ?? "none")) after \(transport.fetchCount) URLs had reached the transport: fetch each URL through the transport, at most maxConcurrent at a time, and call completion once every URL has a result."
    }

    var calls: [[Result<Data, DownloadError>]] { recorder.calls }
    var results: [Result<Data, DownloadError>] { recorder.first ?? [] }
}

func urls(_ count: Int, _ prefix: String = "file") -> [URL] {
    (0..<count).map { URL(string: "https://kata.invalid/\(prefix)-\($0)")! }
}

func describe(_ result: Result<Data, DownloadError>) -> String {
    switch result {
    case .success(let data): ".success(\(data.count) bytes)"
    case .failure(let error): ".failure(.\(error))"
    }
}
