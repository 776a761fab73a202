import Dispatch

/// `transform` applied to every element of `input`, on `DispatchQueue.concurrentPerform`: one
/// iteration per chunk of `chunkSize` elements (the last chunk may be shorter). The results come
/// in input order and equal `input.map(transform)`.
///
/// Each iteration writes only the slots of its own chunk, so no two iterations touch the same
/// memory and no lock is needed; the buffer is read only after `concurrentPerform` has returned,
/// which it does once every iteration has finished.
public func parallelMap<Element: Sendable, Result: Sendable>(
    _ input: [Element], chunkSize: Int, _ transform: @Sendable (Element) -> Result
) -> [Result] {
    precondition(chunkSize > 0, "chunkSize must be at least 1")
    let count = input.count
    guard count > 0 else { return [] }
    let chunks = (count + chunkSize - 1) / chunkSize
    return [Result](unsafeUninitializedCapacity: count) { buffer, initialized in
        let slots = SendableBuffer(buffer)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let start = chunk * chunkSize
            for index in start..<min(start + chunkSize, count) {
                slots.initialize(index, to: transform(input[index]))
            }
        }
        initialized = count
    }
}

/// The result buffer, handed to the iterations; each writes disjoint slots.
private struct SendableBuffer<Value>: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<Value>
    init(_ buffer: UnsafeMutableBufferPointer<Value>) { self.buffer = buffer }
    func initialize(_ index: Int, to value: Value) {
        (buffer.baseAddress! + index).initialize(to: value)
    }
}
