import Foundation

/// Why a graph did not run.
public enum GraphError: Error, Equatable, Sendable {
    /// The dependencies form a cycle: no node of it could ever start.
    case cycle
}

/// Named nodes, each an operation on a queue of its own, with dependencies between them.
///
/// Your task (see README.md in this folder): each node is an `Operation` on the queue it was
/// added with, waiting for its dependencies through `Operation.addDependency`, also across
/// queues; a dependency removed before `run` no longer holds its node back; `run` starts every
/// node and collects every result in one last operation that depends on them all, or refuses a
/// cycle before anything runs.
public final class OperationGraph: @unchecked Sendable {
    public init() {}

    /// Adds a node that runs `work` on `queue`. `work` gets the results of the node's own
    /// dependencies, by name.
    public func addNode(_ name: String, on queue: OperationQueue, work: @escaping @Sendable ([String: Int]) -> Int) {
        // TODO: an operation for the node.
    }

    /// `name` starts only after `dependency` finished. Unknown names are ignored.
    public func addDependency(_ name: String, on dependency: String) {
        // TODO: remember the edge.
    }

    /// Takes back `addDependency(name, on: dependency)`, before `run`.
    public func removeDependency(_ name: String, on dependency: String) {
        // TODO: forget the edge (README: what Operation.removeDependency does on Linux).
    }

    /// Runs every node and calls `completion` once with every node's result, or at once with
    /// `.cycle`, before anything runs, when the dependencies form a cycle.
    public func run(completion: @escaping @Sendable (Result<[String: Int], GraphError>) -> Void) {
        // TODO: look for a cycle; queue a collecting operation and every node.
    }
}
