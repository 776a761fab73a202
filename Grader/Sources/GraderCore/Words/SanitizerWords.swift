import Foundation

extension SanitizerFinding {
    /// ThreadSanitizer's headline in Chinese: its "data race" said as 数据竞争, without the process
    /// id it adds ("data race (pid=18267)"), which tells a learner nothing. Any other kind of
    /// report keeps ThreadSanitizer's own words.
    var summaryInChinese: String {
        let bare = summary.replacingOccurrences(of: " ?\\(pid=[0-9]+\\)", with: "", options: .regularExpression)
        guard bare.hasPrefix("data race") else { return bare }
        return "数据竞争" + bare.dropFirst("data race".count)
    }
}

/// A thread's name followed by a Chinese verb: "线程 T4 写入", "主线程写入" (a space only after
/// a name that ends in Latin letters or digits).
func chineseSubject(_ thread: String) -> String {
    thread.last.map { $0.isASCII } == true ? thread + " " : thread
}
