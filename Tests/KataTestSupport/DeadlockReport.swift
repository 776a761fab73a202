import Foundation
import Testing

/// The one wording every check uses when something did not happen in time.
///
/// Tests never wait without a deadline: a missed deadline becomes a failed check that names
/// the place, and the run goes on.
public enum DeadlockReport {
    /// "Deadlock suspected in <place>: <what> did not happen within N s."
    public static func message(in place: String, waitingFor what: String, seconds: Double) -> String {
        "Deadlock suspected in \(place): \(what) did not happen within \(formatted(seconds)) s."
    }

    /// Records a failed check saying that a deadlock is suspected in `place`, and, in an isolated
    /// check's child, whether the global queues could still start work then.
    public static func record(
        in place: String, waitingFor what: String, seconds: Double, hint: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var text = message(in: place, waitingFor: what, seconds: seconds)
        if Watchdog.running.current && !GlobalQueues.startWork() { text += " " + GlobalQueues.starvedSentence }
        if let hint { text += " " + hint }
        Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
    }

    static func formatted(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }
}
