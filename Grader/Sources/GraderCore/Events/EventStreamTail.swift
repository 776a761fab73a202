import Foundation

/// Reads an event-stream file while the test process is still writing it: each `poll()` consumes
/// the complete lines added since the last one. The grader uses it for live progress and to
/// notice that a run has ended.
public final class EventStreamTail: @unchecked Sendable {
    public let url: URL
    public private(set) var stream = EventStream()
    /// When each test started, by id, for "running X for 1.2 s".
    public private(set) var startTimes: [String: Date] = [:]
    /// When `runEnded` was first seen.
    public private(set) var runEndedAt: Date?
    private var offset: UInt64 = 0
    private var partial = Data()

    public init(url: URL) { self.url = url }

    public func poll() {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.readToEnd(), !data.isEmpty else { return }
        offset += UInt64(data.count)
        partial.append(data)
        while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
            let line = partial[partial.startIndex..<newline]
            partial = Data(partial[partial.index(after: newline)...])
            let before = Set(stream.runs.filter { $0.value.started }.keys)
            stream.consume(line: Data(line))
            for (id, run) in stream.runs where run.started && !before.contains(id) && startTimes[id] == nil { startTimes[id] = Date() }
        }
        if stream.runEnded && runEndedAt == nil { runEndedAt = Date() }
    }

    /// The tests running now, the longest-running first, with how long they have been running.
    public var running: [(test: DeclaredTest, seconds: Double)] {
        stream.unfinished
            .map { ($0, Date().timeIntervalSince(startTimes[$0.id] ?? Date())) }
            .sorted { $0.1 > $1.1 }
    }
}
