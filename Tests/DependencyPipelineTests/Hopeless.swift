import DependencyPipeline
import Dispatch
import Foundation
import KataTestSupport
import Testing

/// How a pipeline check fails as soon as it can know that the completion will never come.
///
/// The checks' sources note the OperationQueue their load was called on (`OperationQueue.current`
/// inside `LoadOperation.main()`): the pipeline's own queue. While a check waits for the
/// completion, it reads that queue: when it is empty and the completion never ran, the collecting
/// operation was cancelled or never enqueued; when a cancelled LoadOperation is still executing,
/// the pipeline is waiting for a source that the check holds. Such a rule must hold for
/// `settleSeconds` without a break before the check gives up: a correct pipeline that hands the
/// completion to another queue, or finishes a cancelled load a moment later, makes a rule true only
/// for an instant. A pipeline that never shows its queue to a source is simply waited for.
enum Hopeless {
    static let settleSeconds = 0.25

    /// Polls `condition` until it holds; gives up once `rule` has held for `settleSeconds`
    /// (recording its reason), or after `seconds` ("deadlock suspected in <place>"). With
    /// `progress`, the deadline counts from the last time `progress()` changed (a pipeline that
    /// keeps moving on a loaded machine is not stuck), up to `limit` in all.
    @discardableResult
    static func waitUntil(
        seconds: Double, limit: Double? = nil, in place: String, waitingFor what: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation, progress: () -> Int = { 0 },
        _ condition: () -> Bool, unless rule: () -> String?
    ) -> Bool {
        let start = DispatchTime.now()
        let hardEnd = start + (limit ?? seconds)
        var end = start + seconds
        var lastProgress = progress()
        var since: DispatchTime?
        while true {
            if condition() { return true }
            let now = DispatchTime.now()
            let moved = progress()
            if moved != lastProgress {
                lastProgress = moved
                end = min(hardEnd, now + seconds)
            }
            if let reason = rule() {
                let first = since ?? now
                since = first
                if now.uptimeNanoseconds - first.uptimeNanoseconds >= UInt64(settleSeconds * 1e9) {
                    if condition() { return true }  // one last look
                    Issue.record(Comment(rawValue: reason), sourceLocation: sourceLocation)
                    return false
                }
            } else {
                since = nil
            }
            if now >= end {
                DeadlockReport.record(in: place, waitingFor: what, seconds: seconds, hint: hint, sourceLocation: sourceLocation)
                return false
            }
            usleep(1_000)
        }
    }

    /// The pipeline's OperationQueue: the one its loads ran on, or else one it keeps in a stored
    /// property (found by reflection, so that a pipeline cancelled before any load is seen too).
    static func queue(of pipeline: ImagePipeline?, sources: [TestSource]) -> OperationQueue? {
        for source in sources {
            if let seen = source.queueSeen.current { return seen }
        }
        guard let pipeline else { return nil }
        let queues = Mirror(reflecting: pipeline).children.compactMap { $0.value as? OperationQueue }
        return queues.count == 1 ? queues[0] : nil
    }

    /// A number that changes whenever the pipeline moves: loads started and delivered, and
    /// operations left in its queue.
    static func progress(_ pipeline: ImagePipeline?, sources: [TestSource]) -> Int {
        let loads = sources.reduce(0) { $0 + $1.loads.current + $1.deliveries.current }
        return loads * 100_000 + (queue(of: pipeline, sources: sources)?.operationCount ?? 0)
    }

    /// Why the completion of `pipeline` will never come, if that can be seen.
    static func pipelineStuck(_ pipeline: ImagePipeline?, sources: [TestSource]) -> String? {
        guard let queue = queue(of: pipeline, sources: sources) else { return nil }
        if queue.operationCount == 0 {
            return "The pipeline's OperationQueue has no operations left, yet the completion never ran: the collecting operation was cancelled (cancelAll() must cancel the stages, never the collector) or never enqueued."
        }
        if let load = queue.operations.first(where: { $0 is LoadOperation && $0.isCancelled && $0.isExecuting }) {
            return "\(load.name ?? "A LoadOperation") was cancelled, yet it is still executing, waiting for its source: cancelled while its load is in flight, a LoadOperation must finish at once as .cancelled and ignore the bytes that come later."
        }
        return nil
    }
}
