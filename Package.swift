// swift-tools-version: 6.2
// Concurrency Kata: one library target per exercise, one Swift Testing suite per exercise.
//
// Each exercise's module is built from `Exercises/<Name>/` (the learner's stub) by default,
// and from `Solutions/<Name>/` when the environment has `KATA_SOLUTIONS=1`, so one suite in
// `Tests/<Name>Tests/` runs against either. Give each mode its own `--scratch-path`
// (the grader uses `.build-solutions`) so that switching does not rebuild everything.
import Foundation
import PackageDescription

/// The exercises, in course order. The grader's rubric (`Grader/rubric.json`) lists the same names.
let allExercises = [
    "ThreadSafeDictionary",
    "AsyncOperation",
    "CancellableWork",
    "ThrottledDownloader",
    "DependencyPipeline",
    "Deadlocks",
    "BoundedBuffer",
    "StallMonitor",
    "QueueOrdering",
    "AsyncBridge",
    "PriorityInversion",
    "RunLoopThread",
    "GatesAndOnce",
]

/// Exercises that come with finished code from another topic (a base class, a data type).
/// That code lives in `Given/<Name>/` as module `<Name>Given`, shared by the stub and the
/// solution, and the exercise module re-exports it (`@_exported import <Name>Given`).
let allExercisesWithGivenCode: [String] = [
    "CancellableWork",
    "ThrottledDownloader",
    "DependencyPipeline",
    "AsyncBridge",
    "QueueOrdering",
    "PriorityInversion",
]

/// Exercises whose suite keeps what does not need the learner's code (the suite's model of the right
/// answers, the code that runs the given code) in a library of its own, `Tests/<Name>Model/`
/// (module `<Name>Model`, on top of `<Name>Given`), tested by `Tests/<Name>SelfTests/`: an ordinary
/// test target that is not graded (the rubric does not list it).
let allExercisesWithSuiteModel: [String] = [
    "QueueOrdering",
]

let useSolutions = Context.environment["KATA_SOLUTIONS"] == "1"

/// The grader leaves out exercises that are not being graded or do not compile
/// (`KATA_EXCLUDE=A,B`), so that one broken exercise does not stop the others.
let excluded = Set((Context.environment["KATA_EXCLUDE"] ?? "").split(separator: ",").map(String.init))
let exercises = allExercises.filter { !excluded.contains($0) }
let exercisesWithGivenCode = allExercisesWithGivenCode.filter { !excluded.contains($0) }
let exercisesWithSuiteModel = allExercisesWithSuiteModel.filter { !excluded.contains($0) }

/// `KATA_VARIANT=<Name>`: build each exercise from `Grader/Variants/<Exercise>/<Name>/`, one of the
/// wrong implementations `grader verify` grades to prove the suites' caps (the grader leaves out,
/// with `KATA_EXCLUDE`, the exercises that have no such variant).
let variant = Context.environment["KATA_VARIANT"].flatMap { $0.isEmpty ? nil : $0 }

/// `KATA_BENCH=1` (what `grader bench` sets, with its own scratch path): add the benchmark
/// executables, which link the learner's exercise modules; see `Benchmarks/`.
let benchmarked = ["ThreadSafeDictionary", "ThrottledDownloader", "AsyncOperation"]
let benchmarks = Context.environment["KATA_BENCH"] == "1" ? benchmarked.filter(exercises.contains) : []

func benchmarkExecutable(_ name: String) -> Target {
    .executableTarget(
        name: "bench-\(name)", dependencies: [.target(name: name), "KataBench", "DictionaryBench"],
        path: "Benchmarks/Executables/\(name)")
}

/// Files in an exercise folder that are for the learner to read, not to compile.
let learnerDocuments = ["README.md", "HINTS.md", "README.zh-Hans.md", "HINTS.zh-Hans.md"]

func exerciseTarget(_ name: String) -> Target {
    let given: [Target.Dependency] = exercisesWithGivenCode.contains(name) ? [.target(name: "\(name)Given")] : []
    if let variant {
        return .target(name: name, dependencies: given + ["KataTripwire"], path: "Grader/Variants/\(name)/\(variant)")
    }
    return useSolutions
        ? .target(name: name, dependencies: given, path: "Solutions/\(name)")
        : .target(name: name, dependencies: given, path: "Exercises/\(name)", exclude: learnerDocuments)
}

func givenTarget(_ name: String) -> Target {
    .target(name: "\(name)Given", path: "Given/\(name)")
}

/// Maintainers' notes kept beside a suite (catch rates, measurements): read, not compiled.
let suiteDocuments = ["MAINTAINERS.md", "MAINTAINERS-issue36.md"]

func exerciseSuite(_ name: String) -> Target {
    let model: [Target.Dependency] = exercisesWithSuiteModel.contains(name) ? [.target(name: "\(name)Model")] : []
    // Only the notes that exist: SwiftPM warns about an excluded file it cannot find.
    let notes = suiteDocuments.filter { FileManager.default.fileExists(atPath: "\(Context.packageDirectory)/Tests/\(name)Tests/\($0)") }
    return .testTarget(name: "\(name)Tests", dependencies: [.target(name: name), "KataTestSupport"] + model, path: "Tests/\(name)Tests", exclude: notes)
}

/// The maintainer's own tests (the test support's, the grader's, the benchmarks', the suite
/// models' self-tests) are built with the solutions (`KATA_SOLUTIONS=1`, as `grader verify` does)
/// or with `KATA_MAINTAINER=1`; never in a learner's build, which they would only slow down, and
/// never run by a learner's plain `swift test`.
let maintainer = useSolutions || Context.environment["KATA_MAINTAINER"] == "1"

/// The suite's model, and for maintainers its self-tests. The model runs the deadlocking given
/// code in exit tests, hence KataTestSupport (and Swift Testing).
func suiteModelTargets(_ name: String) -> [Target] {
    [
        .target(name: "\(name)Model", dependencies: [.target(name: "\(name)Given"), "KataTestSupport"], path: "Tests/\(name)Model"),
    ] + (maintainer ? [
        .testTarget(name: "\(name)SelfTests", dependencies: [.target(name: "\(name)Model"), .target(name: "\(name)Given")], path: "Tests/\(name)SelfTests"),
    ] : [])
}

/// The tests of the course's own machinery, for maintainers.
let maintainerTests: [Target] = [
    .testTarget(name: "KataTestSupportTests", dependencies: ["KataTestSupport"], path: "Tests/KataTestSupportTests"),
    .testTarget(name: "GraderCoreTests", dependencies: ["GraderCore"], path: "Grader/Tests/GraderCoreTests"),
    .testTarget(name: "BenchmarkTests", dependencies: ["DictionaryBench", "KataBench"], path: "Benchmarks/Tests/BenchmarkTests"),
]

let package = Package(
    name: "ConcurrencyKata",
    // Without this, SwiftPM builds for macOS 10.13, where async functions, actors and Swift Testing
    // do not exist. Every Xcode 26 (Swift 6.2 or later) itself needs macOS 15.6, so no learner
    // loses anything by it (developer.apple.com/xcode/system-requirements), and `Mutex` (macOS 15)
    // may be used everywhere.
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "grader", targets: ["grader"]),
    ] + benchmarks.map { .executable(name: "bench-\($0)", targets: ["bench-\($0)"]) },
    targets: exercises.map(exerciseTarget) + exercises.map(exerciseSuite) + exercisesWithGivenCode.map(givenTarget)
        + exercisesWithSuiteModel.flatMap(suiteModelTargets) + [
        // What every suite uses: start barriers, deadlines, meters, exit-test reports.
        .target(name: "KataTestSupport", path: "Tests/KataTestSupport"),
        // The grader: scores the suites; its rubric is Grader/rubric.json.
        .target(name: "GraderCore", dependencies: ["KataBench"], path: "Grader/Sources/GraderCore"),
        .executableTarget(name: "grader", dependencies: ["GraderCore"], path: "Grader/Sources/grader"),
        // The benchmarks' harness and the dictionary baselines (finished code, like Given/).
        .target(name: "KataBench", path: "Benchmarks/KataBench"),
    ] + (maintainer || !benchmarks.isEmpty ? [
        .target(name: "DictionaryBench", dependencies: ["KataBench"], path: "Benchmarks/DictionaryBench"),
    ] : []) + (maintainer ? maintainerTests : []) + benchmarks.map(benchmarkExecutable) + (variant == nil ? [] : [
        // What the "exits early" variants call at each entry point.
        .target(name: "KataTripwire", path: "Grader/Variants/Tripwire"),
    ]),
    swiftLanguageModes: [.v6]
)
