import Foundation

/// Which sources are graded and how they are built.
public struct BuildMode: Sendable, Equatable {
    /// Grade `Solutions/` instead of `Exercises/`.
    public var solutions: Bool
    /// Build with ThreadSanitizer.
    public var sanitize: Bool

    public init(solutions: Bool = false, sanitize: Bool = false) {
        self.solutions = solutions
        self.sanitize = sanitize
    }

    /// Each mode keeps its own build folder, so switching never rebuilds everything. The
    /// learner's mode shares `.build` with `swift test`.
    public var scratchPath: String {
        switch (solutions, sanitize) {
        case (false, false): ".build"
        case (true, false): ".build-solutions"
        case (false, true): ".build-tsan"
        case (true, true): ".build-tsan-solutions"
        }
    }

    /// The environment Package.swift reads: `KATA_SOLUTIONS`, and `KATA_EXCLUDE` for exercises
    /// left out of the build (not selected, or not compiling).
    public func environment(excluding excluded: [String]) -> [String: String] {
        ["KATA_SOLUTIONS": solutions ? "1" : "0", "KATA_EXCLUDE": excluded.sorted().joined(separator: ",")]
    }

    public var buildArguments: [String] {
        ["swift", "build", "--build-tests", "--scratch-path", scratchPath] + (sanitize ? ["--sanitize=thread"] : [])
    }

    /// The command that runs one exercise's suite with an event stream. Checks run one at a
    /// time: stress checks do not disturb each other, and when a run hangs or dies the one
    /// check that had started and not ended is the one to blame.
    /// `skipping` are test ids left out (ones that crashed or hung in an earlier attempt).
    public func testArguments(exercise: String, eventStream: String, excluded: [String], skipping: [String] = []) -> [String] {
        let filter = "^\(exercise)Tests\\."
        let skip = skipping.isEmpty ? [] : ["--skip", skipping.map { NSRegularExpression.escapedPattern(for: $0) }.joined(separator: "|")]
        #if os(Linux)
        // Running the test binary directly saves SwiftPM's start-up on every suite run.
        return ["\(scratchPath)/debug/ConcurrencyKataPackageTests.xctest", "--testing-library", "swift-testing", "--no-parallel",
                "--filter", filter, "--event-stream-output-path", eventStream, "--event-stream-version", "0"] + skip
        #else
        return ["swift", "test", "--skip-build", "--scratch-path", scratchPath, "--disable-xctest"]
            + (sanitize ? ["--sanitize=thread"] : [])
            + ["--no-parallel", "--filter", filter, "--event-stream-output-path", eventStream, "--event-stream-version", "0"] + skip
        #endif
    }
}
