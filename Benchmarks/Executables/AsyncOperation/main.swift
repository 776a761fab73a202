import AsyncOperation
import Foundation
import KataBench

let settings = BenchSettings()
let counts = settings.quick ? [500] : [500, 2_000]

/// Microseconds per item for `count` items made by `make` and run to the end.
func microsecondsPerItem(_ count: Int, _ run: (Int) -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    run(count)
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3 / Double(count)
}

func operations(_ count: Int, chained: Bool, make: () -> Operation) {
    let queue = OperationQueue()
    var previous: Operation?
    var all: [Operation] = []
    for _ in 0..<count {
        let operation = make()
        if chained, let previous { operation.addDependency(previous) }
        previous = operation
        all.append(operation)
    }
    queue.addOperations(all, waitUntilFinished: true)
}

func dispatch(_ count: Int, chained: Bool) {
    let group = DispatchGroup()
    let queue = chained ? DispatchQueue(label: "bench.chain") : DispatchQueue.global()
    for _ in 0..<count { queue.async(group: group) {} }
    group.wait()
}

func workload(chained: Bool) -> BenchReport.Workload {
    BenchReport.Workload(
        name: chained ? "dependency chain" : "independent items",
        description: chained ? "each item waits for the one before (an Operation dependency, or a serial queue)"
                             : "items with no order (an OperationQueue, or a global queue)",
        xLabel: "items", x: counts,
        series: [
            BenchReport.Series(implementation: "your AsyncOperation", isLearner: true, samples: counts.map { count in
                settings.samples { microsecondsPerItem(count) { operations($0, chained: chained) { AsyncBlockOperation { $0.finish() } } } } }),
            BenchReport.Series(implementation: "BlockOperation", samples: counts.map { count in
                settings.samples { microsecondsPerItem(count) { operations($0, chained: chained) { BlockOperation {} } } } }),
            BenchReport.Series(implementation: "DispatchQueue.async", isBaseline: true, samples: counts.map { count in
                settings.samples { microsecondsPerItem(count) { dispatch($0, chained: chained) } } }),
        ])
}

try BenchReport(
    exercise: "AsyncOperation", unit: "microseconds per item", higherIsBetter: false,
    method: "Items that do nothing, so only the machinery is timed: an OperationQueue with your AsyncOperation (finish() at once) "
        + "or BlockOperation, against DispatchQueue.async. \(settings.warmUps) warm-up run, then the median of \(settings.runs) runs. Release build.",
    workloads: [workload(chained: false), workload(chained: true)]
).write()
