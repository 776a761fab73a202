import AsyncOperation
import Foundation
import KataTestSupport
import Testing

/// OperationQueue never polls: it learns that an operation started or finished from the
/// key-value notifications for "isExecuting" and "isFinished". No notifications, a `did` sent
/// before the state changed, or only one of the two keys, and the queue never sees the change.
///
/// On Apple platforms these checks read every notification with KVO. On Linux they read each
/// `did` (see `RecordingOperation` and `DidChangeSite`): a missing, early or repeated `did` for
/// either key shows there too; only the `will`s, which corelibs ignores, are Apple-only.
@Suite("KVO notifications", .exitIsAFailure)
struct KVOTests {
    @Test("start() announces isExecuting: will before the change, did after it")
    func startAnnouncesExecuting() async {
        let operation = RecordingOperation(watched: true)
        guard await Hopeless.call(in: "start()", { operation.start() }) else { return }
        // start() returned; a start() that hands its work to a private queue may still be on its way.
        guard await Hopeless.waitUntil(in: "start()", waitingFor: "the operation leaving .ready",
                                 { operation.state != .ready || operation.isExecuting || operation.isFinished },
                                 unless: { operation.hopeless }) else { return }
        #expect(operation.state == .executing && operation.isExecuting && !operation.isFinished,
                "After start() the operation should be executing (main() did not call finish()); state is .\(operation.state.rawValue), isExecuting \(operation.isExecuting).")
        guard let notes = operation.observedNotifications else { return }
        if let problem = announcementProblem(notes, key: "isExecuting", before: false, after: true, when: "start()") {
            Issue.record(Comment(rawValue: problem))
        }
        #expect(!notes.contains { $0.key == "isFinished" }, "start() announced isFinished, but the operation is not finished: \(notes).")
    }

    @Test("finish() announces isExecuting and isFinished: each will before the change, each did after it")
    func finishAnnouncesExecutingAndFinished() async {
        let completed = DispatchSemaphore(value: 0)
        let operation = RecordingOperation(watched: true)
        operation.completionBlock = { completed.signal() }
        guard await Hopeless.call(in: "start()", { operation.start() }) else { return }
        guard await Hopeless.waitUntil(in: "start()", waitingFor: "the operation leaving .ready",
                                 { operation.state != .ready || operation.isExecuting || operation.isFinished },
                                 unless: { operation.hopeless }) else { return }
        let afterStart = operation.notifications.count
        guard await Hopeless.call(in: "finish()", { operation.finishAndRecord() }) else { return }
        // finish() returned; a finish() that hands the transition to a private queue may still be on its way.
        guard await Hopeless.waitUntil(in: "finish()", waitingFor: "the operation becoming finished", { operation.isFinished },
                                 unless: { operation.hopeless }) else { return }
        #expect(operation.state == .finished && operation.isFinished && !operation.isExecuting,
                "After finish() the operation should be finished; state is .\(operation.state.rawValue), isFinished \(operation.isFinished), isExecuting \(operation.isExecuting).")
        // completionBlock runs when the operation is seen to finish: after a did for isFinished
        // sent once isFinished is true.
        await Hopeless.wait(for: completed, in: "finish()", waitingFor: "completionBlock running",
                      hint: "finish() must call didChangeValue(forKey: \"isFinished\") after the state became .finished.",
                      unless: { operation.hopeless })
        guard let all = operation.observedNotifications else { return }
        let notes = Array(all.dropFirst(afterStart))
        for problem in [
            announcementProblem(notes, key: "isFinished", before: false, after: true, when: "finish()"),
            announcementProblem(notes, key: "isExecuting", before: true, after: false, when: "finish()"),
        ].compactMap({ $0 }) {
            Issue.record(Comment(rawValue: problem))
        }
    }
}
