/// What a learner says a puzzle can do.
public struct Prediction: Sendable, Equatable {
    /// Every output the puzzle can print, e.g. `["1234", "2134"]`. For a puzzle that can stop in a
    /// deadlock, the labels it has printed when it stops: everything that can still run has run,
    /// and the rest waits forever.
    public var outputs: Set<String>
    /// True if the puzzle stops in a deadlock (some of its labels are never printed).
    public var deadlocks: Bool

    public init(outputs: Set<String>, deadlocks: Bool) {
        self.outputs = outputs
        self.deadlocks = deadlocks
    }
}
