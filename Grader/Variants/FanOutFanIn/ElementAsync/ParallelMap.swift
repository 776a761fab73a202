import Dispatch
import Foundation

// The reference, except that parallelMap puts one DispatchQueue.global().async per element and
// waits on a group: when the calls block, libdispatch adds threads, and the thread count grows
// with the input.

/// `transform` applied to every element of `input`.
public func parallelMap<Element: Sendable, Result: Sendable>(
    _ input: [Element], chunkSize: Int, _ transform: @Sendable (Element) -> Result
) -> [Result] {
    precondition(chunkSize > 0, "chunkSize must be at least 1")
    let count = input.count
    guard count > 0 else { return [] }
    let slots = ResultSlots<Result>(count: count)
    let group = DispatchGroup()
    withoutActuallyEscaping(transform) { transform in
        let transform = UnsafeTransform(transform)
        for index in 0..<count {
            let element = input[index]
            DispatchQueue.global().async(group: group) {
                slots.set(index, transform.call(element))
            }
        }
        group.wait()
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

/// The caller's transform, handed to the global queue's blocks: parallelMap waits for them all
/// before it returns, so the non-escaping closure outlives every call.
private struct UnsafeTransform<Element, Result>: @unchecked Sendable {
    let call: (Element) -> Result
    init(_ call: @escaping (Element) -> Result) { self.call = call }
}
