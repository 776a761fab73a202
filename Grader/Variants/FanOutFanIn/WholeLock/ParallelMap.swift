import Dispatch
import Foundation

// The reference, except that one lock is held around the whole transform: right results, and
// the work runs one call at a time.

/// `transform` applied to every element of `input`.
public func parallelMap<Element: Sendable, Result: Sendable>(
    _ input: [Element], chunkSize: Int, _ transform: @Sendable (Element) -> Result
) -> [Result] {
    precondition(chunkSize > 0, "chunkSize must be at least 1")
    let count = input.count
    guard count > 0 else { return [] }
    let chunks = (count + chunkSize - 1) / chunkSize
    let lock = NSLock()
    let slots = ResultSlots<Result>(count: count)
    DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
        let start = chunk * chunkSize
        for index in start..<min(start + chunkSize, count) {
            lock.lock()
            let value = transform(input[index])
            slots.set(index, value)
            lock.unlock()
        }
    }
    return slots.values
}

/// One slot per element, under a lock.
private final class ResultSlots<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Value?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: Value) { lock.lock(); slots[index] = value; lock.unlock() }

    var values: [Value] { lock.lock(); defer { lock.unlock() }; return slots.compactMap { $0 } }
}
