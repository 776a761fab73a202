import Foundation

/// Which sources are graded and how they are built.
public struct BuildMode: Sendable, Equatable {
    /// Grade `Solutions/` instead of `Exercises/`.
    public var solutions: Bool
    /// Build with ThreadSanitizer.
    public var sanitize: Bool
    /// Grade one of the wrong implementations in `Grader/Variants/<Exercise>/<variant>/`
    /// (`grader verify` does, to prove the suites' caps).
    public var variant: String?
    /// Verify's rounds: each exercise's own variant (exercise → variant name), built together so
    /// that one build and one run cover several exercises' variants; `variant` names the round.
    public var variantsByExercise: [String: String] = [:]
    /// SwiftPM's build system, passed to every SwiftPM command (`--build-system`): the one the
    /// learner chose, else SwiftPM's default (`SwiftPMFacts.defaultBuildSystem`).
    public var buildSystem: BuildSystem
    /// Verify's grade of the stubs: built in the variants' folder, so that the `Misbehaving`
    /// build after it (the stubs with a tripwire) compiles only the exercises and their suites.
    public var inVariantsFolder = false

    public init(solutions: Bool = false, sanitize: Bool = false, variant: String? = nil, buildSystem: BuildSystem = .native) {
        self.solutions = solutions
        self.sanitize = sanitize
        self.variant = variant
        self.buildSystem = buildSystem
    }

    /// The same sources and build system, built with ThreadSanitizer (the race check).
    public var sanitized: BuildMode {
        var mode = self
        mode.sanitize = true
        return mode
    }

    /// Each mode keeps its own build folder, so switching never rebuilds everything. The
    /// learner's mode shares `.build` with `swift test`. Both build systems can share a folder:
    /// they keep their products apart inside it (`SwiftPMFacts`).
    public var scratchPath: String {
        // All variants share one folder: switching rebuilds only the exercise modules and
        // their suites, not the support code, the grader and the given code. The solutions'
        // ThreadSanitizer build (verify's race check of the solutions) shares the variants' one
        // for the same reason: only verify builds either.
        if variant != nil || inVariantsFolder || (solutions && sanitize) { return sanitize ? ".build-verify-tsan" : ".build-variants" }
        return solutions ? ".build-solutions" : (sanitize ? ".build-tsan" : ".build")
    }

    /// The environment Package.swift reads: `KATA_SOLUTIONS`, and `KATA_EXCLUDE` for exercises
    /// left out of the build (not selected, or not compiling).
    public func environment(excluding excluded: [String]) -> [String: String] {
        var environment = ["KATA_SOLUTIONS": solutions ? "1" : "0", "KATA_EXCLUDE": excluded.sorted().joined(separator: ","),
                           "KATA_VARIANT": variantsByExercise.isEmpty ? variant ?? ""
                               : variantsByExercise.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")]
        // The race check's canary, in the ThreadSanitizer build only (its build folder is its own).
        if sanitize { environment["KATA_RACE_CANARY"] = "1" }
        // Builds that only run suites, in folders of their own, leave the grader out (Package.swift).
        if suitesOnly { environment["KATA_SUITES_ONLY"] = "1" }
        return environment
    }

    /// A build that only runs suites: the ThreadSanitizer builds, the variants' and verify's stubs'. The learner's
    /// and the solutions' builds keep the grader (`swift run grader`, the maintainer's tests).
    public var suitesOnly: Bool { sanitize || variant != nil || inVariantsFolder }

    /// Where the graded sources of `exercise` are, relative to the course.
    public func sourceFolder(of exercise: String) -> String {
        if let own = variantsByExercise[exercise] { return "Grader/Variants/\(exercise)/\(own)" }
        if let variant, variantsByExercise.isEmpty { return "Grader/Variants/\(exercise)/\(variant)" }
        return (solutions ? "Solutions/" : "Exercises/") + exercise
    }

    public var buildArguments: [String] {
        ["swift", "build", "--build-tests", "--scratch-path", scratchPath] + buildSystem.swiftPMArguments + (sanitize ? ["--sanitize=thread"] : [])
    }

    /// Asks SwiftPM where this build puts its products, with the options that decide it.
    var binPathArguments: [String] {
        ["swift", "build", "--show-bin-path", "--scratch-path", scratchPath] + buildSystem.swiftPMArguments + (sanitize ? ["--sanitize=thread"] : [])
    }

    /// The options that run the tests `filter` selects, with an event stream. In parallel
    /// (Swift Testing's default, what `swift test` does) unless `parallel` is false: one at a
    /// time, so that when a run hangs or dies the one check that had started and not ended is
    /// the one to blame. `skipping` are test ids left out (ones that crashed or hung before).
    public static func testOptions(filter: String, eventStream: String, parallel: Bool = true, skipping: [String] = []) -> [String] {
        let skip = skipping.isEmpty ? [] : ["--skip", "^(" + skipping.map { NSRegularExpression.escapedPattern(for: $0) }.joined(separator: "|") + ")$"]
        return (parallel ? [] : ["--no-parallel"])
            + ["--filter", filter, "--event-stream-output-path", eventStream, "--event-stream-version", "0"] + skip
    }
}
