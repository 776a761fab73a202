/// How much running of the puzzles each graded check does. The self-tests check that these runs
/// are enough to print every output the model allows, and nothing else.
public enum RunBudget {
    /// How many times a puzzle that does not deadlock is run (in the process, with jitter).
    public static let runs = 2_000
    /// How many child processes run the puzzle that libdispatch stops (one run each).
    public static let stoppedChildren = 24
    /// How many times the puzzle that hangs is run (in one child process).
    public static let hangingRuns = 100
    /// The most time a check spends running a puzzle; on this 2-core machine 2,000 runs take
    /// about a second unless it is heavily loaded. Cut-short runs weaken only the evidence in the
    /// messages: the verdict comes from the model.
    public static let runSeconds: Double = 1.0
}
