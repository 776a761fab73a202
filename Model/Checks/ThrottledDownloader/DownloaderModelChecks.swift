#if KATA_MODEL
import Foundation
import KataModel

/// The systematic checks of ThrottledDownloader. The transport is a fake whose answers are
/// `asyncAfter`s on a twin queue, in virtual time: an answer due at the same virtual moment as the
/// downloader's timeout, or as a `cancelAll()`, is an order the model chooses, both ways.
/// (New checks go at the end: `ExerciseModelTests` names them by position.)
public let modelChecks: [ModelCheck] = [
    lateAnswerCheck,
    sharedLimitCheck,
    cancelAgainstAnswerCheck,
    returnsAtOnceCheck,
]

/// Limit 1, timeout 1 s. "late" answers exactly when its timeout fires; "a" and "b" wait behind
/// it and take 0.1 s each. Whichever of the timeout and the answer comes first settles "late" and
/// frees its slot, once: "a" and "b" then run one at a time, and the caller hears once.
let lateAnswerCheck = ModelCheck(
    "a timeout against a late answer", zh: "超时与晚到的回答赛跑", stress: ["timeoutFreesSlotOnce", "randomWorkloads"]
) {
    let transport = ModelTransport { name in name == "late" ? .unmetered(after: 1) : .metered(after: 0.1) }
    let downloader = ThrottledDownloader(transport: transport, maxConcurrent: 1, timeout: .seconds(1))
    let heard = Heard()
    let caller = Model.spawn("caller") {
        downloader.download(modelURLs("late", "a", "b"), completion: heard.completion)
    }
    Model.join(caller)
    Model.joinAll()
    let results = heard.first
    let lateOK = results.first == "timedOut" || results.first == "success(late)"
    Model.check(
        heard.calls.count == 1 && lateOK && Array(results.dropFirst()) == ["success(a)", "success(b)"] && transport.peak <= 1,
        "maxConcurrent 1, timeout 1 s; \"late\" answers just as its timeout fires, \"a\" and \"b\" wait behind it: completion ran \(heard.calls.count) times (once), with \(results) ([timedOut or success(late), success(a), success(b)]); \(transport.peak) of \"a\" and \"b\" were fetched at once (at most 1: the slot of \"late\" is freed once, by whichever comes first)",
        zh: "maxConcurrent 为 1，超时 1 秒；\"late\" 恰在超时触发时回答，\"a\" 和 \"b\" 在它后面等待：completion 运行了 \(heard.calls.count) 次（应为 1 次），结果 \(results)（应为 [timedOut 或 success(late), success(a), success(b)]）；\"a\" 和 \"b\" 中同时在途的有 \(transport.peak) 个（最多 1 个：\"late\" 的名额只由先到的一方释放一次）")
}

/// Limit 2, two callers at once, two URLs each, every answer 0.1 s after its fetch: never more
/// than 2 fetches in flight, each caller hears once, with its own results in input order.
let sharedLimitCheck = ModelCheck(
    "two callers share the limit", zh: "两个调用方共用上限",
    stress: ["limitIsReachedNeverExceeded", "callsShareTheLimit", "resultsInInputOrder", "randomWorkloads"]
) {
    let transport = ModelTransport { _ in .metered(after: 0.1) }
    let downloader = ThrottledDownloader(transport: transport, maxConcurrent: 2, timeout: .seconds(1))
    let heard = [Heard(), Heard()]
    let lists = [["a1", "a2"], ["b1", "b2"]]
    let callers = ["A", "B"].enumerated().map { index, name in
        Model.spawn("caller \(name)") {
            downloader.download(modelURLs(lists[index]), completion: heard[index].completion)
        }
    }
    Model.join(callers)
    Model.joinAll()
    let expected = lists.map { $0.map { "success(\($0))" } }
    Model.check(
        transport.peak <= 2 && heard.allSatisfy { $0.calls.count == 1 } && heard.map(\.first) == expected,
        "maxConcurrent 2, two callers download 2 URLs each at once: \(transport.peak) fetches were in flight at once (at most 2); the completions ran \(heard.map(\.calls.count)) times (once each), with \(heard.map(\.first)) (each caller its own URLs, in input order)",
        zh: "maxConcurrent 为 2，两个调用方同时各下载 2 个 URL：同时在途的请求有 \(transport.peak) 个（最多 2 个）；两个 completion 分别运行了 \(heard.map(\.calls.count)) 次（各 1 次），结果 \(heard.map(\.first))（每个调用方得到自己的 URL，按输入顺序）")
}

/// Limit 1, no timeout in reach. "a" answers 0.5 s after its fetch, exactly when `cancelAll()`
/// runs. "a" is fetched at once. Either order is right: "a" succeeds or is cancelled; "b" and "c" are cancelled; "c" is
/// never fetched, and "b" only if "a" answered first (the slot was free before the cancel).
let cancelAgainstAnswerCheck = ModelCheck(
    "cancelAll against an answer", zh: "cancelAll 与回答赛跑", stress: ["cancelAllStopsPendingAndInFlight", "randomWorkloads"]
) {
    let transport = ModelTransport { _ in .metered(after: 0.5) }
    let downloader = ThrottledDownloader(transport: transport, maxConcurrent: 1, timeout: .seconds(10))
    let heard = Heard()
    downloader.download(modelURLs("a", "b", "c"), completion: heard.completion)
    let returnedAt = Model.now
    DispatchQueue(label: "canceller").asyncAfter(deadline: .now() + 0.5) { downloader.cancelAll() }
    Model.joinAll()
    let results = heard.first
    let answeredFirst = results.first == "success(a)"
    let pendingFetched = transport.fetched.contains("c") || (transport.fetched.contains("b") && !answeredFirst)
    Model.check(
        transport.fetched.first == "a" && heard.calls.count == 1 && (answeredFirst || results.first == "cancelled")
            && Array(results.dropFirst()) == ["cancelled", "cancelled"] && !pendingFetched,
        "maxConcurrent 1; download([a, b, c]) returned at virtual second \(returnedAt), and cancelAll() ran at 0.5, just as \"a\" answered: completion ran \(heard.calls.count) times (once), with \(results) ([success(a) or cancelled, cancelled, cancelled]); the transport was asked for \(transport.fetched) (\"a\" at once; never \"c\"; \"b\" only if \"a\" answered first)",
        zh: "maxConcurrent 为 1；download([a, b, c]) 在虚拟时间 \(returnedAt) 秒返回，cancelAll() 在 0.5 秒运行，恰在 \"a\" 回答时：completion 运行了 \(heard.calls.count) 次（应为 1 次），结果 \(results)（应为 [success(a) 或 cancelled, cancelled, cancelled]）；transport 被请求了 \(transport.fetched)（应立即请求 \"a\"；从不应有 \"c\"；只有 \"a\" 先回答时才可以有 \"b\"）")
}

/// Limit 1: one caller downloads two URLs, then two more while the second one still waits for
/// the slot. Both calls return at virtual time 0, before any fetch could answer; every URL succeeds.
let returnsAtOnceCheck = ModelCheck(
    "download returns at once", zh: "download 立即返回", stress: ["downloadReturnsAtOnce"]
) {
    let transport = ModelTransport { _ in .metered(after: 0.1) }
    let downloader = ThrottledDownloader(transport: transport, maxConcurrent: 1, timeout: .seconds(1))
    let heard = [Heard(), Heard()]
    let returned = Heard()
    let caller = Model.spawn("caller") {
        downloader.download(modelURLs("a1", "a2"), completion: heard[0].completion)
        returned.times.append(Model.now)
        downloader.download(modelURLs("b1", "b2"), completion: heard[1].completion)
        returned.times.append(Model.now)
    }
    Model.join(caller)
    Model.joinAll()
    Model.check(
        returned.times == [0, 0] && heard.allSatisfy { $0.calls.count == 1 }
            && heard.map(\.first) == [["success(a1)", "success(a2)"], ["success(b1)", "success(b2)"]],
        "maxConcurrent 1, fetches answering 0.1 s after they start: the two download calls returned at virtual seconds \(returned.times) ([0, 0]: download must not wait for a slot on the caller's thread); the completions ran \(heard.map(\.calls.count)) times (once each), with \(heard.map(\.first)) (every URL a success)",
        zh: "maxConcurrent 为 1，请求开始 0.1 秒后回答：两次 download 调用在虚拟时间 \(returned.times) 秒返回（应为 [0, 0]：download 不能在调用方线程上等待名额）；两个 completion 分别运行了 \(heard.map(\.calls.count)) 次（各 1 次），结果 \(heard.map(\.first))（每个 URL 都应成功）")
}

func modelURLs(_ names: String...) -> [URL] { modelURLs(names) }

func modelURLs(_ names: [String]) -> [URL] {
    names.map { URL(string: "https://example.com/\($0)")! }
}

/// A transport whose answers come from `asyncAfter` on a twin queue, in virtual time. It counts
/// the metered fetches in flight (from the fetch to its answer); an unmetered one (an answer due
/// when the downloader gives up on it) is left out, as the downloader may free its slot first.
final class ModelTransport: Transport, @unchecked Sendable {
    enum Plan { case metered(after: Double), unmetered(after: Double) }

    private let plan: @Sendable (String) -> Plan
    private let answers = DispatchQueue(label: "transport", attributes: .concurrent)
    var fetched: [String] = []
    var inFlight = 0
    var peak = 0

    init(_ plan: @escaping @Sendable (String) -> Plan) {
        self.plan = plan
    }

    func fetch(_ url: URL, completion: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        let name = url.lastPathComponent
        fetched.append(name)
        Model.note("fetch \(name)")
        switch plan(name) {
        case .metered(let delay):
            inFlight += 1
            peak = max(peak, inFlight)
            answers.asyncAfter(deadline: .now() + delay) { [self] in
                inFlight -= 1
                Model.note("answer \(name)")
                completion(.success(Data(name.utf8)))
            }
        case .unmetered(let delay):
            answers.asyncAfter(deadline: .now() + delay) {
                Model.note("answer \(name)")
                completion(.success(Data(name.utf8)))
            }
        }
    }
}

/// What a caller heard: each call of its completion, the results written short
/// ("success(a)", "timedOut", "cancelled", "failed").
final class Heard: @unchecked Sendable {
    var calls: [[String]] = []
    var times: [Double] = []
    var first: [String] { calls.first ?? [] }

    var completion: @Sendable ([Result<Data, DownloadError>]) -> Void {
        { [self] results in calls.append(results.map(Heard.describe)) }
    }

    static func describe(_ result: Result<Data, DownloadError>) -> String {
        switch result {
        case .success(let data): "success(\(String(decoding: data, as: UTF8.self)))"
        case .failure(.timedOut): "timedOut"
        case .failure(.cancelled): "cancelled"
        case .failure(.failed): "failed"
        }
    }
}
#endif
