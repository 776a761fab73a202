import Foundation

/// A child's output lines with the moment each arrived, as the grader read them: how the
/// loop benchmark splits a SwiftPM build into its phases, and watch's screens into save → points
/// → verdict. Bounded: the first `limit` lines are kept.
public final class TimedLines: @unchecked Sendable {
    public struct Line: Equatable, Sendable {
        public var at: Date
        public var text: String
        public init(at: Date, text: String) {
            self.at = at
            self.text = text
        }
    }

    public let started: Date
    let limit: Int
    private let lock = NSLock()
    private var partial = Data()
    private var kept: [Line] = []

    public init(started: Date = Date(), limit: Int = 100_000) {
        self.started = started
        self.limit = limit
    }

    /// Adds a chunk of output read at `time`; a line counts when its newline arrives.
    public func append(_ chunk: Data, at time: Date = Date()) {
        lock.lock(); defer { lock.unlock() }
        partial.append(chunk)
        while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: partial[partial.startIndex..<newline], as: UTF8.self)
            partial = Data(partial[partial.index(after: newline)...])
            if kept.count < limit { kept.append(Line(at: time, text: line)) }
        }
    }

    public var lines: [Line] {
        lock.lock(); defer { lock.unlock() }
        return kept
    }

    public var count: Int {
        lock.lock(); defer { lock.unlock() }
        return kept.count
    }
}
