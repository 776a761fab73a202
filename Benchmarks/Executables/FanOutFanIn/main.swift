import Dispatch
import FanOutFanIn
import Foundation
import KataBench

/// The same job for every way: `items` parts, each about 50 µs of arithmetic, their results
/// collected. What differs is how the parts are spread and joined.
let settings = BenchSettings()
let counts = settings.quick ? [64, 256] : [64, 256, 1_024]
let cores = ProcessInfo.processInfo.activeProcessorCount

/// Where every result ends, so that the optimizer keeps the work that made it.
nonisolated(unsafe) var sink = 0
let sinkLock = NSLock()
@Sendable func keep(_ value: Int) { sinkLock.lock(); sink ^= value; sinkLock.unlock() }
@Sendable func keep(_ values: [Int]) { keep(values.reduce(0, ^)) }

/// One part's work: a chain of dependent multiplications the optimizer cannot shorten; every
/// result is kept (`keep`), so that no way's work can be dropped.
@Sendable func part(_ seed: Int) -> Int {
    var value = UInt64(truncatingIfNeeded: seed) | 1
    for step in 0..<iterationsPerPart { value = value &* 6_364_136_223_846_793_005 &+ UInt64(truncatingIfNeeded: step) ^ (value >> 29) }
    return Int(truncatingIfNeeded: value >> 33)
}

/// How many steps make about 50 µs here (measured once at start).
let iterationsPerPart: Int = {
    var value: UInt64 = 1
    let start = DispatchTime.now().uptimeNanoseconds
    for step in 0..<1_000_000 { value = value &* 6_364_136_223_846_793_005 &+ UInt64(truncatingIfNeeded: step) ^ (value >> 29) }
    let nanoseconds = Double(DispatchTime.now().uptimeNanoseconds - start)
    keep(Int(truncatingIfNeeded: value))
    return max(1_000, Int(50_000 / (nanoseconds / 1_000_000)))
}()


/// Milliseconds that `run` takes; `run` returns once every part's result is in.
func milliseconds(_ run: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    run()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

/// Waits for a completion-based way; a way that never completes shows as infinity.
func waiting(_ start: (@escaping @Sendable () -> Void) -> Void) {
    let done = DispatchSemaphore(value: 0)
    start { done.signal() }
    _ = done.wait(timeout: .now() + 60)
}

func serial(_ count: Int) { keep((0..<count).map(part)) }

func yourParallelMap(_ count: Int) { keep(parallelMap(Array(0..<count), chunkSize: max(1, count / (cores * 4)), part)) }

/// The classic wrong attempt the suite's overlap check catches, kept here to show what it costs.
func lockedParallelMap(_ count: Int) {
    let lock = NSLock()
    DispatchQueue.concurrentPerform(iterations: count) { index in
        lock.lock()
        keep(part(index))
        lock.unlock()
    }
}

func yourChain(_ count: Int) {
    let steps: [@Sendable (Int) -> Int] = (0..<count).map { index in { value in value &+ part(index) } }
    waiting { done in WorkChain(queue: DispatchQueue(label: "bench.chain"), steps: steps).start(with: 0) { outcome in keep(outcome == .finished(0) ? 0 : 1); done() } }
}

func yourGraph(_ count: Int) {
    let queues = (0..<2).map { _ in OperationQueue() }
    let graph = OperationGraph()
    for index in 0..<count { graph.addNode("\(index)", on: queues[index % 2]) { _ in part(index) } }
    waiting { done in graph.run { results in keep((try? results.get().values.reduce(0, ^)) ?? 0); done() } }
}

func yourBlockOperation(_ count: Int) {
    let queue = OperationQueue()
    let parts: [@Sendable () -> Int] = (0..<count).map { index in { part(index) } }
    waiting { done in BlockFanOut.run(parts, on: queue) { results in keep(results); done() } }
}

func series(_ name: String, learner: Bool = false, baseline: Bool = false, _ run: @escaping (Int) -> Void) -> BenchReport.Series {
    BenchReport.Series(implementation: name, isLearner: learner, isBaseline: baseline, samples: counts.map { count in
        settings.samples { milliseconds { run(count) } }
    })
}

try BenchReport(
    exercise: "FanOutFanIn", unit: "milliseconds for the whole job", higherIsBetter: false,
    method: "\(counts.map(String.init).joined(separator: ", ")) parts of about 50 µs of arithmetic each, on \(cores) cores: "
        + "run one after another (the serial baseline), with your parallelMap (chunks of count / (4 × cores)), with concurrentPerform and "
        + "a lock around each part's work, as your WorkChain (a chain is serial by nature: each step waits for the one before), as your "
        + "OperationGraph (independent nodes on two queues and the collecting operation), and as one BlockOperation of yours "
        + "(swift-corelibs-foundation runs its blocks one after another; Apple platforms at the same time). "
        + "\(settings.warmUps) warm-up run, then the median of \(settings.runs) runs. Release build.",
    workloads: [BenchReport.Workload(
        name: "one job: the serial baseline and five ways", description: "time for every part's result to be in, against the number of parts",
        xLabel: "parts", x: counts,
        series: [
            series("serial map", baseline: true, serial),
            series("your parallelMap", learner: true, yourParallelMap),
            series("concurrentPerform, lock around the work", lockedParallelMap),
            series("your WorkChain", learner: true, yourChain),
            series("your OperationGraph", learner: true, yourGraph),
            series("your BlockFanOut.run", learner: true, yourBlockOperation),
        ])]
).write()
