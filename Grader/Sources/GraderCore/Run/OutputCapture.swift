import Foundation

/// Keeps a child's output bounded: the first `keep` bytes and the last `keep` bytes, whatever it
/// prints, and counts the rest. Learner code that prints in a loop must not fill the disk or the
/// grader's memory.
final class OutputCapture: @unchecked Sendable {
    let keep: Int
    private let lock = NSLock()
    private var head = Data()
    private var tail: [Data] = []
    private var tailBytes = 0
    private(set) var totalBytes = 0

    init(keep: Int) { self.keep = keep }

    func append(_ chunk: Data) {
        lock.lock()
        defer { lock.unlock() }
        totalBytes += chunk.count
        var rest = chunk
        if head.count < keep {
            let taken = rest.prefix(keep - head.count)
            head.append(taken)
            rest = rest.dropFirst(taken.count)
        }
        guard !rest.isEmpty else { return }
        tail.append(Data(rest))
        tailBytes += rest.count
        while let first = tail.first, tailBytes - first.count >= keep {
            tail.removeFirst()
            tailBytes -= first.count
        }
    }

    var bytesSeen: Int { lock.lock(); defer { lock.unlock() }; return totalBytes }

    /// The kept output, with a line saying how much was left out between head and tail.
    var text: Data {
        lock.lock()
        defer { lock.unlock() }
        var result = head
        let kept = head.count + tailBytes
        if totalBytes > kept {
            result.append(Data("\n[… \(totalBytes - kept) bytes of output left out by the grader …]\n".utf8))
        }
        for chunk in tail { result.append(chunk) }
        return result
    }
}
