import Dispatch

// The reference, except that the iterations append to one shared array, without a lock:
// results are lost or come out of order (and the array can be corrupted: a data race).

/// `transform` applied to every element of `input`.
public func parallelMap<Element: Sendable, Result: Sendable>(
    _ input: [Element], chunkSize: Int, _ transform: @Sendable (Element) -> Result
) -> [Result] {
    precondition(chunkSize > 0, "chunkSize must be at least 1")
    let count = input.count
    guard count > 0 else { return [] }
    let chunks = (count + chunkSize - 1) / chunkSize
    nonisolated(unsafe) var results: [Result] = []
    DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
        let start = chunk * chunkSize
        for index in start..<min(start + chunkSize, count) {
            results.append(transform(input[index]))
        }
    }
    return results
}
