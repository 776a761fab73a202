import Dispatch
import FanOutFanIn
import Foundation
import KataTestSupport
import Testing

/// An operation graph across queues. Isolated: a cycle handed to a queue never ends, and
/// swift-corelibs-foundation keeps unretained pointers between operations.
@Suite("Operation graph", .exitIsAFailure)
struct OperationGraphTests {
    static let crashHint = "A crash here usually means an operation was freed while another still pointed to it (a dependency or a collecting operation kept by nobody)."

    /// What the nodes of one graph did.
    final class Record: Sendable {
        let ran = Locked([String]())
        let offQueue = Locked([String]())
        let inputs = Locked([String: [String: Int]]())
        let outcomes = Locked([Result<[String: Int], GraphError>]())
        let started = Stopwatch()

        func work(_ name: String, on queue: OperationQueue, value: Int) -> @Sendable ([String: Int]) -> Int {
            { [self] given in
                if OperationQueue.current !== queue { offQueue.withLock { $0.append(name) } }
                inputs.withLock { $0[name] = given }
                ran.withLock { $0.append(name) }
                return value + given.values.reduce(0, +)
            }
        }

        var completion: @Sendable (Result<[String: Int], GraphError>) -> Void {
            { [self] outcome in outcomes.withLock { $0.append(outcome) } }
        }

        /// Waits for the completion; gives up early when, after `run` returned, no node ran and no
        /// queue holds an operation (an untouched stub).
        func waitForCompletion(in place: String, queues: [OperationQueue]) -> Bool {
            Deadline.waitUntil(
                seconds: Deadline.promptSeconds, in: place, waitingFor: "run's completion",
                unless: { [self] in
                    ran.current.isEmpty && queues.allSatisfy({ $0.operationCount == 0 }) && started.seconds > quietSeconds
                        ? "run(completion:) returned and, \(Int(quietSeconds * 1000)) ms later, no node had run, no queue held an operation, and the completion had not been called." : nil
                }, { [self] in !outcomes.current.isEmpty })
        }
    }

    static func queue(_ name: String) -> OperationQueue {
        let queue = OperationQueue()
        queue.name = name
        return queue
    }

    @Test("A diamond of nodes on three queues: each node runs on its own queue after its dependencies, with their results, and one collecting completion gets every result")
    func graphRunsAcrossQueuesAndCollects() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "an operation graph")
            OperationGraphTests.runsAcrossQueues()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "an operation graph", crashHint: Self.crashHint)
    }

    static func runsAcrossQueues() {
        let (first, second, third) = (queue("kata.graph.1"), queue("kata.graph.2"), queue("kata.graph.3"))
        let record = Record()
        let graph = OperationGraph()
        graph.addNode("load", on: first, work: record.work("load", on: first, value: 1))
        graph.addNode("left", on: second, work: record.work("left", on: second, value: 10))
        graph.addNode("right", on: third, work: record.work("right", on: third, value: 100))
        graph.addNode("join", on: first, work: record.work("join", on: first, value: 1_000))
        graph.addDependency("left", on: "load")
        graph.addDependency("right", on: "load")
        graph.addDependency("join", on: "left")
        graph.addDependency("join", on: "right")
        graph.run(completion: record.completion)
        guard record.waitForCompletion(in: "a diamond on three queues", queues: [first, second, third]) else { return }
        let ran = record.ran.current
        #expect(ran.count == 4 && ran.first == "load" && ran.last == "join", "The nodes ran in the order \(ran), expected load first, then left and right in either order, then join, each once.")
        #expect(record.offQueue.current.isEmpty, "Nodes \(record.offQueue.current) ran off the queue they were added with: add each node's operation to its own queue.")
        let inputs = record.inputs.current
        #expect(inputs["join"] == ["left": 11, "right": 101] && inputs["left"] == ["load": 1] && inputs["load"] == [:], "The nodes got the inputs \(inputs), expected load [:], left and right [load: 1], join [left: 11, right: 101]: each node gets the results of its own dependencies.")
        let expected: [String: Int] = ["load": 1, "left": 11, "right": 101, "join": 1_112]
        let outcomes = record.outcomes.current
        #expect(outcomes.count == 1 && (try? outcomes.first?.get()) == expected, "run's completion was called with \(outcomes), expected once with .success(\(expected)).")
    }

    @Test("A dependency removed before run no longer holds its node back: the node runs while its former dependency waits for it")
    func removedDependencyNoLongerWaits() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "a removed dependency")
            OperationGraphTests.removedDependency()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "a removed dependency", crashHint: Self.crashHint)
    }

    static func removedDependency() {
        let (first, second) = (queue("kata.graph.removed.1"), queue("kata.graph.removed.2"))
        // "first" blocks while it waits: a serial queue under it runs it on a thread of its own
        // (libdispatch's overcommit pool), so that "second" still finds a thread in the global
        // pool, which grows only about once a second (src/event/workqueue.c).
        // (The queue holds its underlying queue unowned(unsafe) in swift-corelibs-foundation: keep it.)
        let thread = DispatchQueue(label: "kata.graph.removed.1.thread")
        first.underlyingQueue = thread
        defer { withExtendedLifetime(thread) {} }
        let record = Record()
        let graph = OperationGraph()
        let waitedInVain = Locked(false)
        // "first" waits until "second" has run: it can only if second does not wait for it. Its
        // patience is paid only by a graph that kept the dependency.
        let firstWork = record.work("first", on: first, value: 1)
        graph.addNode("first", on: first) { inputs in
            if !Deadline.happens(within: Deadline.promptSeconds, { record.ran.current.contains("second") }) { waitedInVain.withLock { $0 = true } }
            return firstWork(inputs)
        }
        graph.addNode("second", on: second, work: record.work("second", on: second, value: 2))
        graph.addDependency("second", on: "first")
        graph.removeDependency("second", on: "first")
        graph.run(completion: record.completion)
        let kept = "After removeDependency(\"second\", on: \"first\"), second still waited for first (first waited 3 s for second to run). Keep the graph's edges yourself and give them to the operations only in run: on Linux, Operation.removeDependency leaves an unfinished dependency counted, and the operation never becomes ready."
        let answered = Deadline.waitUntil(
            seconds: 2 * Deadline.promptSeconds, in: "a graph with a removed dependency", waitingFor: "run's completion",
            unless: {
                if waitedInVain.current { return kept }
                return record.ran.current.isEmpty && [first, second].allSatisfy({ $0.operationCount == 0 }) && record.started.seconds > quietSeconds
                    ? "run(completion:) returned and, \(Int(quietSeconds * 1000)) ms later, no node had run, no queue held an operation, and the completion had not been called." : nil
            }, { !record.outcomes.current.isEmpty })
        guard answered else { return }
        if waitedInVain.current {
            Issue.record(Comment(rawValue: kept))
            return
        }
        #expect(record.inputs.current["second"] == [:], "second got the inputs \(record.inputs.current["second"] ?? [:]) after its only dependency was removed, expected none.")
        let outcomes = record.outcomes.current
        #expect(outcomes.count == 1 && (try? outcomes.first?.get()) == ["first": 1, "second": 2], "run's completion was called with \(outcomes), expected once with .success([first: 1, second: 2]).")
    }

    @Test("A graph with a cycle is refused with .cycle before any node runs, also a node outside the cycle")
    func cycleRefusedBeforeAnythingRuns() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "a graph with a cycle")
            OperationGraphTests.cycleRefused()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(ending, in: "a graph with a cycle", crashHint: Self.crashHint)
    }

    static func cycleRefused() {
        let (first, second) = (queue("kata.graph.cycle.1"), queue("kata.graph.cycle.2"))
        let record = Record()
        let graph = OperationGraph()
        graph.addNode("alone", on: second, work: record.work("alone", on: second, value: 0))
        for (name, queue) in [("a", first), ("b", second), ("c", first)] {
            graph.addNode(name, on: queue, work: record.work(name, on: queue, value: 1))
        }
        graph.addDependency("b", on: "a")
        graph.addDependency("c", on: "b")
        graph.addDependency("a", on: "c")
        graph.run(completion: record.completion)
        let answered = Deadline.waitUntil(
            seconds: Deadline.promptSeconds, in: "a graph with a cycle", waitingFor: "run's completion",
            unless: {
                if record.outcomes.current.isEmpty, !record.ran.current.isEmpty {
                    return "The graph a → b → c → a was handed to its queues: node \(record.ran.current) ran, and the cycle's operations never become ready, so nothing completes. Look for a cycle in run, before any operation is queued, and complete with .cycle."
                }
                return record.ran.current.isEmpty && [first, second].allSatisfy({ $0.operationCount == 0 }) && record.started.seconds > quietSeconds
                    ? "run(completion:) returned and, \(Int(quietSeconds * 1000)) ms later, no node had run, no queue held an operation, and the completion had not been called." : nil
            }, { !record.outcomes.current.isEmpty })
        guard answered else { return }
        // Whatever was queued has had a turn of both queues to start.
        first.addOperations([BlockOperation {}], waitUntilFinished: true)
        second.addOperations([BlockOperation {}], waitUntilFinished: true)
        let outcomes = record.outcomes.current
        let refused = outcomes.count == 1 && { if case .failure(.cycle) = outcomes[0] { return true } else { return false } }()
        #expect(refused, "run on the graph a → b → c → a completed with \(outcomes), expected once with .failure(.cycle).")
        #expect(record.ran.current.isEmpty, "Nodes \(record.ran.current) ran although the graph has a cycle: refuse the whole graph before any operation is queued.")
    }
}
