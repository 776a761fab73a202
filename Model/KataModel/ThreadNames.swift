/// The names the checks give their threads ("producer 1", "transfer 0 → 1 of 50") and the names
/// queues give their blocks ("queue 'session' block 2"), in Chinese for the Chinese frame. Code
/// (quoted labels, `withAccounts(0, 1)`) stays as it is.
public enum ThreadNames {
    static let words: [String: String] = [
        "main": "主线程", "producer": "生产者", "consumer": "消费者", "reader": "读者", "writer": "写者",
        "opener": "打开者", "caller": "调用者", "auditor": "审计者", "submitter": "提交者",
        "transfer": "转账", "queue": "队列", "block": "块", "timer": "定时器", "thread": "线程",
    ]

    public static func chinese(_ name: String) -> String {
        var parts = name.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        // "transfer 0 → 1 of 50": the amount in brackets.
        if let of = parts.firstIndex(of: "of"), of + 1 < parts.count, Int(parts[of + 1]) != nil {
            parts[of + 1] = "（\(parts[of + 1])）"
            parts.remove(at: of)
            let amount = parts.remove(at: of)
            parts[of - 1] += amount
        }
        return parts.map { words[$0] ?? $0 }.joined(separator: " ")
    }
}
