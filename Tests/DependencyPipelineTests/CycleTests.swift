import DependencyPipeline
import Foundation
import Testing

/// Operations in a dependency cycle never become ready: the queue holds them forever (the
/// course material's A ↔ B deadlock). `validateAcyclic` finds a cycle before anything is enqueued.
@Suite("Dependency cycles", .exitIsAFailure)
struct CycleTests {
    /// An operation whose dependency list the check sets directly. swift-corelibs-foundation
    /// deadlocks in `addDependency` when an operation is added to itself (it takes the same lock
    /// twice), so a self-dependency is modelled this way.
    final class ListedDependencies: Operation, @unchecked Sendable {
        nonisolated(unsafe) var listed: [Operation] = []
        override var dependencies: [Operation] { listed }
    }

    static func named(_ name: String) -> Operation {
        let operation = BlockOperation {}
        operation.name = name
        return operation
    }

    /// True if `names` is a cycle of `operations`: each depends on the next, the last on the first.
    static func isCycle(_ names: [String], in operations: [Operation]) -> Bool {
        let byName = Dictionary(operations.map { ($0.name ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        guard !names.isEmpty, Set(names).count == names.count else { return false }
        for (index, name) in names.enumerated() {
            guard let operation = byName[name], let next = byName[names[(index + 1) % names.count]] else { return false }
            if !operation.dependencies.contains(where: { $0 === next }) { return false }
        }
        return true
    }

    static func cycleFound(in operations: [Operation]) -> [String]? {
        do {
            try ImagePipeline.validateAcyclic(operations)
            return nil
        } catch PipelineError.cycle(let names) {
            return names
        } catch {
            return ["unexpected error: \(error)"]
        }
    }

    @Test("validateAcyclic names the cycle: a self-dependency, 2- and 3-cycles, and one back edge in a graph of 500; an acyclic graph passes")
    func validateFindsCycles() {
        let selfLoop = ListedDependencies()
        selfLoop.name = "self"
        selfLoop.listed = [selfLoop]

        let (a, b) = (Self.named("A"), Self.named("B"))
        a.addDependency(b)
        b.addDependency(a)

        let (x, y, z, outside) = (Self.named("X"), Self.named("Y"), Self.named("Z"), Self.named("outside"))
        x.addDependency(y)
        y.addDependency(z)
        z.addDependency(x)
        x.addDependency(outside)

        var large: [Operation] = []
        for index in 0..<500 {
            let operation = Self.named("op\(index)")
            if index > 0 { operation.addDependency(large[index - 1]) }
            if index > 10 { operation.addDependency(large[Int.random(in: 0..<(index - 1))]) }
            large.append(operation)
        }
        let acyclic = Self.cycleFound(in: large)
        large[120].addDependency(large[380])  // the one back edge

        let graphs: [(String, [Operation])] = [
            ("an operation that depends on itself", [selfLoop]),
            ("A ↔ B", [a, b]),
            ("X → Y → Z → X", [outside, x, y, z]),
            ("500 operations with one back edge", large),
        ]
        for (name, operations) in graphs {
            let found = Self.cycleFound(in: operations)
            #expect(found.map { Self.isCycle($0, in: operations) } == true,
                    "For \(name), validateAcyclic should throw .cycle with the names on the cycle, each depending on the next and the last on the first; it \(found.map { "threw .cycle(\($0.prefix(8)))" } ?? "did not throw"). Use a depth-first search that remembers the operations on the current path.")
        }
        #expect(acyclic == nil, "validateAcyclic threw for an acyclic graph of 500 operations: \(acyclic?.prefix(5) ?? []).")
    }
}
