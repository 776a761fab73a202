import Foundation

/// Runs load → decode → filters for many images on one OperationQueue.
///
/// Variant "KeepsCollector" for `grader verify`: the reference solution that keeps every operation
/// it enqueued, the collector too (`cancelAll()` skips it), and whose collector reads the results
/// through `self` (an instance method). The pipeline holds the collector and the collector's block
/// holds the pipeline until the next `process` call: a pipeline let go after its last call is
/// never freed, nor are its operations and the caller's completion.
///
/// Reference solution. Every stage is an operation that depends on the stage before and reads
/// its input from it; a collecting operation depends on the last stage of every chain and calls
/// the completion. `cancelAll()` cancels the stages but never the collector, so the completion
/// still fires, once, and reports `.cancelled` for every chain that did not finish.
public final class ImagePipeline: @unchecked Sendable {
    private let queue = OperationQueue()
    private let lock = NSLock()
    private var stages: [Operation] = []

    public init(maxConcurrentOperations: Int) {
        queue.maxConcurrentOperationCount = max(1, maxConcurrentOperations)
        queue.name = "ImagePipeline"
    }

    /// One chain per source: load → decode → each filter in order. Results come in `sources`
    /// order, once.
    public func process(
        _ sources: [any DataSource], filters: [Filter],
        completion: @escaping @Sendable ([Result<Bitmap, PipelineError>]) -> Void
    ) {
        var chains: [[Operation]] = []
        for source in sources {
            var chain: [Operation] = [LoadOperation(source: source)]
            let decode = DecodeOperation()
            decode.name = "decode \(source.name)"
            chain.append(decode)
            for (index, filter) in filters.enumerated() {
                let stage = FilterOperation(filter)
                stage.name = "filter \(index + 1) \(source.name)"
                chain.append(stage)
            }
            for (earlier, later) in zip(chain, chain.dropFirst()) { later.addDependency(earlier) }
            chains.append(chain)
        }
        let lasts = chains.compactMap(\.last)
        let collector = BlockOperation {
            completion(lasts.map(self.result))
        }
        collector.name = "collect results"
        for last in lasts { collector.addDependency(last) }
        let all = chains.flatMap { $0 }
        do {
            try Self.validateAcyclic(all + [collector])
        } catch {
            completion(sources.map { _ in .failure(error as? PipelineError ?? .cancelled) })
            return
        }
        lock.lock()
        stages.removeAll { $0.isFinished }
        stages += all + [collector]
        lock.unlock()
        queue.addOperations(all + [collector], waitUntilFinished: false)
    }

    /// No stage starts work after this returns; unfinished items complete as `.cancelled`.
    public func cancelAll() {
        lock.lock()
        let running = stages
        lock.unlock()
        for stage in running where !(stage is BlockOperation) { stage.cancel() }
    }

    private func result(of stage: Operation) -> Result<Bitmap, PipelineError> {
        if let bitmap = (stage as? BitmapProviding)?.outputBitmap { return .success(bitmap) }
        return .failure((stage as? StageFailing)?.failure ?? .cancelled)
    }

    /// Throws `.cycle` naming the operations on a dependency cycle among `operations` (and
    /// whatever they depend on); used before enqueuing, because a cycle never runs.
    public static func validateAcyclic(_ operations: [Operation]) throws {
        var state: [ObjectIdentifier: Bool] = [:]  // false: on the current path; true: done
        var path: [Operation] = []

        func visit(_ operation: Operation) throws {
            let id = ObjectIdentifier(operation)
            if state[id] == true { return }
            if state[id] == false {
                let start = path.firstIndex { $0 === operation } ?? 0
                throw PipelineError.cycle(path[start...].map { $0.name ?? "unnamed operation" })
            }
            state[id] = false
            path.append(operation)
            for dependency in operation.dependencies { try visit(dependency) }
            path.removeLast()
            state[id] = true
        }

        for operation in operations { try visit(operation) }
    }
}
