import Dispatch
import Foundation
import Testing

/// A deadline that counts from the last sign of progress, not from the start.
///
/// "Deadlock suspected" must mean that nothing moved, not that the work was slow: on a loaded
/// machine a correct solution's threads may take seconds to be scheduled. A wait with a
/// `ProgressDeadline` gives up after `seconds` without any change in `progress()` (threads
/// arriving, returning, operations finishing, counts moving), or after `limit` in all, however
/// much it moves: a generous outer bound, so that a livelock still ends.
public struct ProgressDeadline {
    public let seconds: Double
    public let limit: Double
    private let start = DispatchTime.now().uptimeNanoseconds
    private var lastChange = DispatchTime.now().uptimeNanoseconds
    private var lastSeen: Int
    /// How many times `progress()` changed: said in the report, so that a learner reads whether
    /// the work stopped at once or late.
    public private(set) var changes = 0

    /// The outer bound for a wait whose quiet deadline is `seconds`.
    public static func defaultLimit(for seconds: Double) -> Double { max(seconds * 4, 20) }

    public init(seconds: Double, limit: Double? = nil, progress: Int) {
        self.seconds = seconds
        self.limit = max(limit ?? Self.defaultLimit(for: seconds), seconds)
        lastSeen = progress
    }

    /// Notes `progress`; true once the wait has to give up.
    public mutating func expired(progress: Int) -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        if progress != lastSeen {
            lastSeen = progress
            lastChange = now
            changes += 1
        }
        return now - lastChange >= UInt64(seconds * 1e9) || now - start >= UInt64(limit * 1e9)
    }

    /// Whether the last `expired` ended at the outer bound while things still moved.
    public var endedAtLimit: Bool {
        DispatchTime.now().uptimeNanoseconds - lastChange < UInt64(seconds * 1e9)
    }

    /// What the report says about the wait: "within N s" for a wait that saw nothing move,
    /// otherwise how long it waited and that it stopped moving (or hit the bound).
    public func report(in place: String, waitingFor what: String) -> String {
        if changes == 0 { return DeadlockReport.message(in: place, waitingFor: what, seconds: seconds) }
        if endedAtLimit {
            return "Too slow in \(place): \(what) did not happen within \(DeadlockReport.formatted(limit)) s, although the work was still moving (a livelock, or work that never ends)."
        }
        return "Deadlock suspected in \(place): \(what) did not happen; after \(changes) signs of progress, nothing moved for \(DeadlockReport.formatted(seconds)) s."
    }
}

extension Deadline {
    /// Polls `condition` until it holds, blocking; gives up when `progress()` has not changed for
    /// `seconds` (or after `limit` in all), recording the report, or at once with `hopeless`'s
    /// reason. For isolated bodies and dedicated threads.
    @discardableResult
    public static func waitUntil(
        quiet seconds: Double, limit: Double? = nil, in place: String, waitingFor what: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        progress: () -> Int, unless hopeless: () -> String? = { nil }, _ condition: () -> Bool
    ) -> Bool {
        var deadline = ProgressDeadline(seconds: seconds, limit: limit, progress: progress())
        while !condition() {
            if let reason = hopeless() {
                if condition() { return true }
                Issue.record(Comment(rawValue: reason), sourceLocation: sourceLocation)
                return false
            }
            if deadline.expired(progress: progress()) {
                if condition() { return true }
                Issue.record(Comment(rawValue: deadline.report(in: place, waitingFor: what) + (hint.map { " " + $0 } ?? "")), sourceLocation: sourceLocation)
                return false
            }
            usleep(1_000)
        }
        return true
    }
}

extension Await {
    /// `Deadline.waitUntil(quiet:…)` without blocking a thread.
    @discardableResult
    public static func until(
        quiet seconds: Double, limit: Double? = nil, in place: String, waitingFor what: String, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        progress: () -> Int, unless hopeless: () -> String? = { nil }, _ condition: () -> Bool
    ) async -> Bool {
        var deadline = ProgressDeadline(seconds: seconds, limit: limit, progress: progress())
        while !condition() {
            if let reason = hopeless() {
                if condition() { return true }
                Issue.record(Comment(rawValue: reason), sourceLocation: sourceLocation)
                return false
            }
            if deadline.expired(progress: progress()) {
                if condition() { return true }
                Issue.record(Comment(rawValue: deadline.report(in: place, waitingFor: what) + (hint.map { " " + $0 } ?? "")), sourceLocation: sourceLocation)
                return false
            }
            await pause(0.001)
        }
        return true
    }
}
