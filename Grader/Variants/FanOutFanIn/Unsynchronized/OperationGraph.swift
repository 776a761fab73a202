import Foundation

/// Why a graph did not run.
public enum GraphError: Error, Equatable, Sendable {
    /// The dependencies form a cycle: no node of it could ever start.
    case cycle
}

/// Named nodes, each an operation on a queue of its own choosing, with dependencies between them
/// (also across queues). `run` starts every node and collects every result in one last operation
/// that depends on them all.
public final class OperationGraph: @unchecked Sendable {
    private struct Node {
        let operation: BlockOperation
        let queue: OperationQueue
    }

    private let lock = NoLock()
    private var nodes: [String: Node] = [:]
    /// For each node, the names of the nodes it waits for.
    private var edges: [String: Set<String>] = [:]
    /// What the operations share; it holds no operation, so nothing holds the graph in a cycle.
    private let state = GraphState()

    public init() {}

    /// Adds a node that runs `work` on `queue`. `work` gets the results of the node's own
    /// dependencies, by name.
    public func addNode(_ name: String, on queue: OperationQueue, work: @escaping @Sendable ([String: Int]) -> Int) {
        let operation = BlockOperation()
        let state = self.state
        // The block belongs to the operation, which is alive while the block runs.
        operation.addExecutionBlock { [unowned operation] in
            let result = work(state.results(of: operation.dependencies))
            state.store(result, for: name)
        }
        state.name(operation, name)
        lock.withLock { nodes[name] = Node(operation: operation, queue: queue) }
    }

    /// `name` starts only after `dependency` finished. Unknown names are ignored.
    public func addDependency(_ name: String, on dependency: String) {
        lock.withLock {
            guard nodes[name] != nil, nodes[dependency] != nil else { return }
            edges[name, default: []].insert(dependency)
        }
    }

    /// Takes back `addDependency(name, on: dependency)`, before `run`.
    ///
    /// The graph keeps its edges itself and gives them to the operations only in `run`:
    /// swift-corelibs-foundation's `Operation.removeDependency` takes an unfinished dependency off
    /// the list but does not lower the count that `isReady` reads (`Operation.swift`: it lowers
    /// it only when the dependency is finished and the operation cancelled), so on Linux an
    /// operation whose unfinished dependency was removed never becomes ready.
    public func removeDependency(_ name: String, on dependency: String) {
        lock.withLock { _ = edges[name]?.remove(dependency) }
    }

    /// Runs every node and calls `completion` once with every node's result, or at once with
    /// `.cycle`, before anything runs, when the dependencies form a cycle.
    public func run(completion: @escaping @Sendable (Result<[String: Int], GraphError>) -> Void) {
        let (nodes, edges) = lock.withLock { (self.nodes, self.edges) }
        if hasCycle(edges) {
            completion(.failure(.cycle))
            return
        }
        for (name, dependencies) in edges {
            for dependency in dependencies {
                if let node = nodes[name], let other = nodes[dependency] { node.operation.addDependency(other.operation) }
            }
        }
        // The collecting operation goes on one of the nodes' queues, which the caller keeps alive.
        guard let home = nodes.keys.sorted().first.flatMap({ nodes[$0]?.queue }) else {
            completion(.success([:]))
            return
        }
        let state = self.state
        let collect = BlockOperation { completion(.success(state.all)) }
        for node in nodes.values { collect.addDependency(node.operation) }
        for node in nodes.values { node.queue.addOperation(node.operation) }
        home.addOperation(collect)
    }

    /// Depth-first search over the edges: a node met again while still on the path closes a cycle.
    private func hasCycle(_ edges: [String: Set<String>]) -> Bool {
        var done = Set<String>()
        var onPath = Set<String>()
        func visit(_ name: String) -> Bool {
            if onPath.contains(name) { return true }
            if done.contains(name) { return false }
            onPath.insert(name)
            defer { onPath.remove(name); done.insert(name) }
            return edges[name, default: []].contains(where: visit)
        }
        return edges.keys.contains(where: visit)
    }
}

/// The nodes' names and results, shared by their operations.
private final class GraphState: @unchecked Sendable {
    private let lock = NoLock()
    private var names: [ObjectIdentifier: String] = [:]
    private var results: [String: Int] = [:]

    func name(_ operation: Operation, _ name: String) { lock.withLock { names[ObjectIdentifier(operation)] = name } }

    func store(_ result: Int, for name: String) { lock.withLock { results[name] = result } }

    /// The results of `operations` (a node's dependencies), by name.
    func results(of operations: [Operation]) -> [String: Int] {
        lock.withLock {
            Dictionary(uniqueKeysWithValues: operations.compactMap { operation in
                names[ObjectIdentifier(operation)].map { ($0, results[$0] ?? 0) }
            })
        }
    }

    var all: [String: Int] { lock.withLock { results } }
}
