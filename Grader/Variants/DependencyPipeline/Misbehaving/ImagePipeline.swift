import Foundation
import KataTripwire

/// Runs load → decode → filters for many images on one OperationQueue.
///
/// TODO (see README.md): build one chain of operations per source, each stage depending on the
/// one before; let one collecting operation, depending on the last stage of every chain, call
/// the completion; check the graph with `validateAcyclic` before enqueuing it.
public final class ImagePipeline: @unchecked Sendable {
    public init(maxConcurrentOperations: Int) {
        Tripwire.call()
        // TODO: an OperationQueue limited to `maxConcurrentOperations`.
    }

    /// One chain per source: load → decode → each filter in order. Results come in `sources`
    /// order, once.
    public func process(
        _ sources: [any DataSource], filters: [Filter],
        completion: @escaping @Sendable ([Result<Bitmap, PipelineError>]) -> Void
    ) {
        Tripwire.call()
        completion(sources.map { _ in .failure(.cancelled) })  // TODO
    }

    /// No stage starts work after this returns; unfinished items complete as `.cancelled`.
    public func cancelAll() {
        Tripwire.call()
        // TODO
    }

    /// Throws `.cycle` naming the operations on a dependency cycle among `operations` (and
    /// whatever they depend on); used before enqueuing, because a cycle never runs.
    public static func validateAcyclic(_ operations: [Operation]) throws {
        Tripwire.call()
        // TODO: a depth-first search over `dependencies`.
    }
}
