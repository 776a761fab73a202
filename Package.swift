// swift-tools-version: 6.2
// Concurrency Kata: one library target per exercise, one Swift Testing suite per exercise.
//
// The learner's build (no variable set; `swift build`, `swift test`, `swift run grader`): each
// exercise's module from `Exercises/<Name>/` (the stub), its suite `Tests/<Name>Tests/`, the
// given code, the test support and the grader. Every other build is that one with a variable
// from the environment, read below where it is used; give each its own `--scratch-path` so that
// switching does not rebuild everything.
//
// | variable              | set by                                   | adds or changes                           | leaves out                       |
// | --------------------- | ---------------------------------------- | ----------------------------------------- | -------------------------------- |
// | KATA_SOLUTIONS=1      | `grader --solutions`, `verify`           | exercises from `Solutions/`; the          |                                  |
// |                       | (`.build-solutions`)                     | maintainer's tests                        |                                  |
// | KATA_EXCLUDE=A,B      | the grader, for exercises not graded or  |                                           | exercises A and B, their suites  |
// |                       | not compiling                            |                                           | and what only they use           |
// | KATA_VARIANT=V        | `verify`, for `Grader/Variants/`         | exercises from `Grader/Variants/<Name>/V/`|                                  |
// |  or A=X,B=Y           |                                          | (A from X, B from Y, others their stubs)  |                                  |
// | KATA_RACE_CANARY=1    | the race check's ThreadSanitizer build   | the canary races in `KataTestSupport`     |                                  |
// | KATA_SUITES_ONLY=1    | ThreadSanitizer and variant builds       |                                           | the grader, the maintainer's     |
// |                       |                                          |                                           | tests and what only they use     |
// | KATA_BENCH=1          | `grader bench` (`.build-bench`)          | the benchmark executables                 |                                  |
// | KATA_MAINTAINER=1     | a maintainer, by hand                    | the maintainer's tests; the model's       |                                  |
// |                       |                                          | builds, tests and `kata-model` tool       |                                  |
// | KATA_MODEL=1          | `grader model`, `grader replay`          | the model's builds and tests; the graded  |                                  |
// |                       | (`.build-model`)                         | code with twins, `model-<Exercise>`       |                                  |
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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
    "MainHop",
    "FanOutFanIn",
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
/// with `KATA_EXCLUDE`, the exercises that have no such variant). `KATA_VARIANT=A=X,B=Y`: exercise
/// A from its variant X, B from its Y (one of verify's rounds); an exercise not named, its stub.
let variant = Context.environment["KATA_VARIANT"].flatMap { $0.isEmpty ? nil : $0 }
let variantsByExercise: [String: String] = Dictionary(
    (variant ?? "").split(separator: ",").compactMap { pair -> (String, String)? in
        let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }, uniquingKeysWith: { first, _ in first })

/// The variant an exercise is built from, if any.
func variantFolder(of name: String) -> String? {
    guard let variant else { return nil }
    if variantsByExercise.isEmpty { return variant }
    return variantsByExercise[name]
}

/// `KATA_BENCH=1` (what `grader bench` sets, with its own scratch path): add the benchmark
/// executables, which link the learner's exercise modules; see `Benchmarks/`.
let benchmarked = ["ThreadSafeDictionary", "ThrottledDownloader", "AsyncOperation", "FanOutFanIn"]
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
    if let own = variantFolder(of: name) {
        return .target(name: name, dependencies: given + ["KataTripwire"], path: "Grader/Variants/\(name)/\(own)")
    }
    return useSolutions
        ? .target(name: name, dependencies: given, path: "Solutions/\(name)")
        : .target(name: name, dependencies: given, path: "Exercises/\(name)", exclude: learnerDocuments)
}

func givenTarget(_ name: String) -> Target {
    .target(name: "\(name)Given", path: "Given/\(name)")
}

/// The names in a folder (none when it cannot be read), without `.` and `..`. Read with the C
/// library rather than Foundation: SwiftPM compiles the manifest again for every build environment
/// it has not cached (verify uses about twenty-five), and importing Foundation made each of those
/// take 5.0 s instead of 1.3 s (`swift package dump-package`, 2-core Linux x86_64, Swift 6.3.1).
func namesOfFiles(in path: String) -> [String] {
    guard let folder = opendir(path) else { return [] }
    defer { closedir(folder) }
    var names: [String] = []
    while let entry = readdir(folder) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// Whether `path` is a folder that can be read.
func isFolder(_ path: String) -> Bool {
    guard let folder = opendir(path) else { return false }
    closedir(folder)
    return true
}

/// Maintainer notes a suite's folder may hold beside its sources (catch rates, how the checks were
/// checked): excluded when present, so that SwiftPM does not warn about unhandled files (and does
/// not warn about excluding a file that is not there).
func maintainerNotes(in folder: String) -> [String] {
    let names = namesOfFiles(in: Context.packageDirectory + "/" + folder)
    return names.filter { $0.hasPrefix("MAINTAINERS") && $0.hasSuffix(".md") }.sorted()
}

func exerciseSuite(_ name: String) -> Target {
    let model: [Target.Dependency] = exercisesWithSuiteModel.contains(name) ? [.target(name: "\(name)Model")] : []
    let folder = "Tests/\(name)Tests"
    return .testTarget(
        name: "\(name)Tests", dependencies: [.target(name: name), "KataTestSupport"] + model, path: folder,
        exclude: maintainerNotes(in: folder))
}

/// `KATA_RACE_CANARY=1` (what the grader sets for its ThreadSanitizer build only, which has a build
/// folder of its own): compile the race check's canary (`Tests/KataTestSupport/RaceCanary.swift`),
/// the known races whose reports prove that ThreadSanitizer ran and was read.
let raceCanarySettings: [SwiftSetting] = Context.environment["KATA_RACE_CANARY"] == "1" ? [.define("KATA_RACE_CANARY")] : []

/// The maintainer's own tests (the test support's, the grader's, the benchmarks', the suite
/// models' self-tests) are built with the solutions (`KATA_SOLUTIONS=1`, as `grader verify` does)
/// or with `KATA_MAINTAINER=1`; never in a learner's build, which they would only slow down, and
/// never run by a learner's plain `swift test`.
let maintainer = useSolutions || Context.environment["KATA_MAINTAINER"] == "1"

/// `KATA_SUITES_ONLY=1` (what the grader sets for the builds that only run suites: its
/// ThreadSanitizer builds and verify's variants, each in a build folder of its own): leave out
/// the grader, the maintainer's tests and what only they use, which such a build would otherwise
/// compile once more (with ThreadSanitizer, for the race check).
let suitesOnly = Context.environment["KATA_SUITES_ONLY"] == "1"
/// The maintainer's own tests, unless the build only runs suites.
let maintainerTestsBuilt = maintainer && !suitesOnly

/// The suite's model, and for maintainers its self-tests. The model runs the deadlocking given
/// code in exit tests, hence KataTestSupport (and Swift Testing).
func suiteModelTargets(_ name: String) -> [Target] {
    [
        .target(name: "\(name)Model", dependencies: [.target(name: "\(name)Given"), "KataTestSupport"], path: "Tests/\(name)Model"),
    ] + (maintainerTestsBuilt ? [
        .testTarget(name: "\(name)SelfTests", dependencies: [.target(name: "\(name)Model"), .target(name: "\(name)Given")], path: "Tests/\(name)SelfTests"),
    ] : [])
}

/// The tests of the course's own machinery, for maintainers.
let maintainerTests: [Target] = [
    .testTarget(name: "KataTestSupportTests", dependencies: ["KataTestSupport"], path: "Tests/KataTestSupportTests"),
    .testTarget(name: "GraderCoreTests", dependencies: ["GraderCore"], path: "Grader/Tests/GraderCoreTests"),
    .testTarget(name: "BenchmarkTests", dependencies: ["DictionaryBench", "KataBench"], path: "Benchmarks/Tests/BenchmarkTests"),
]

/// The model (`Model/`, for maintainers): `KATA_MODEL=1` or `KATA_MAINTAINER=1`
/// add the deterministic scheduler (`Model/KataModel/`), the exercises' code compiled with twins of
/// the synchronization types (`Model/Builds/<Exercise>/<Implementation>/`, symlinks to the
/// solution or a grader variant, the twins and the exercise's model checks), and their tests.
/// A learner's build does not change.
let modelMode = Context.environment["KATA_MODEL"] == "1" || Context.environment["KATA_MAINTAINER"] == "1"

/// Each exercise's implementations built with twins, as modules `Modeled<Exercise><Implementation>`.
let modeledBuilds: [(exercise: String, implementation: String)] = [
    ("ThreadSafeDictionary", "Solution"), ("ThreadSafeDictionary", "LockStyle"), ("ThreadSafeDictionary", "MutexStyle"),
    ("ThreadSafeDictionary", "SubtleRace"), ("ThreadSafeDictionary", "GlobalBarrier"),
    ("BoundedBuffer", "Solution"), ("BoundedBuffer", "SubtleRace"), ("BoundedBuffer", "RelockBeforeWait"),
    ("BoundedBuffer", "SignalNotBroadcast"), ("BoundedBuffer", "Semaphores"),
    ("BoundedBuffer", "IfNotWhile"),
    ("Deadlocks", "Solution"), ("Deadlocks", "OppositeOrder"), ("Deadlocks", "PlainSync"),
    ("Deadlocks", "TotalInTurn"), ("Deadlocks", "TotalDecreasing"), ("Deadlocks", "NonRecursive"), ("Deadlocks", "AuditNoLock"),
    ("Deadlocks", "AuditAfterUnlock"), ("Deadlocks", "OneLock"), ("Deadlocks", "LockPerPair"), ("Deadlocks", "RefusedKeepsLocks"),
    ("GatesAndOnce", "Solution"), ("GatesAndOnce", "CheckThenAct"), ("GatesAndOnce", "SubtleRace"), ("GatesAndOnce", "Reflexes"),
    ("GatesAndOnce", "ResumeBeforeDecide"), ("GatesAndOnce", "MutexStateEnum"), ("GatesAndOnce", "SerialQueueSync"),
    ("GatesAndOnce", "ConditionGate"), ("GatesAndOnce", "KeptWork"),
    ("CancellableWork", "Solution"), ("CancellableWork", "SubtleRace"), ("CancellableWork", "Generation"),
    ("ThrottledDownloader", "Solution"), ("ThrottledDownloader", "SerialQueueOwner"), ("ThrottledDownloader", "LockedPullQueue"),
    ("ThrottledDownloader", "LateAnswerSignals"), ("ThrottledDownloader", "TimeoutAlwaysFrees"), ("ThrottledDownloader", "UnlockedLook"),
    ("ThrottledDownloader", "CancelOneByOne"), ("ThrottledDownloader", "CallerWaits"), ("ThrottledDownloader", "SemaphorePerCall"),
    ("StallMonitor", "Solution"), ("StallMonitor", "SubtleRace"), ("StallMonitor", "PingsAfterStop"),
    ("StallMonitor", "TimerLeftRunning"), ("StallMonitor", "Unsynchronized"), ("StallMonitor", "SecondTimer"),
    ("StallMonitor", "FlagAtSchedule"), ("StallMonitor", "StrongSelf"), ("StallMonitor", "TimerInInit"),
    ("StallMonitor", "StateEnum"), ("StallMonitor", "SerialQueue"),
].filter { !excluded.contains($0.exercise) }

let modelTargets: [Target] = modelMode ? [
    .target(name: "KataModel", path: "Model/KataModel"),
    .testTarget(
        name: "KataModelTests",
        dependencies: ["KataModel"] + modeledBuilds.map { .target(name: "Modeled\($0.exercise)\($0.implementation)") },
        path: "Model/KataModelTests"),
    .executableTarget(
        name: "kata-model",
        dependencies: ["KataModel"] + modeledBuilds.map { .target(name: "Modeled\($0.exercise)\($0.implementation)") },
        path: "Model/Tool"),
] + modeledBuilds.map { build in
    .target(
        name: "Modeled\(build.exercise)\(build.implementation)",
        dependencies: ["KataModel"] + (exercisesWithGivenCode.contains(build.exercise) ? [.target(name: "\(build.exercise)Given")] : []),
        path: "Model/Builds/\(build.exercise)/\(build.implementation)",
        // KATA_WRONG_<Implementation> picks the fault of a file that holds several
        // (`Model/Wrong/Deadlocks/Faults/Bank.swift`); other files ignore it.
        swiftSettings: [.define("KATA_MODEL"), .define("KATA_WRONG_\(build.implementation)")])
} : []

/// `KATA_MODEL=1` only (what `grader model` and `grader replay` set, with their own scratch path
/// `.build-model`): the exercises the model covers, compiled from the graded folder (the
/// learner's `Exercises/<Exercise>/`, `Solutions/<Exercise>/` with `KATA_SOLUTIONS=1`, or
/// `Grader/Variants/<Exercise>/<KATA_VARIANT>/`) with the twins and the exercise's model checks,
/// as module `Modeled<Exercise>`, and a runner `model-<Exercise>` for each. The files are reached
/// through directory links in `Model/Learner/<Exercise>/` (SwiftPM refuses two targets that list
/// the same path, and the exercise's own target lists the folder itself). The learner's documents
/// are excluded by name as in `exerciseTarget`, and so are the files the model does not check
/// (`unmodeledFiles`); the learner's normal build never sees these targets.
let learnerModelMode = Context.environment["KATA_MODEL"] == "1"
let learnerModeled = [
    "ThreadSafeDictionary", "BoundedBuffer", "Deadlocks", "GatesAndOnce", "CancellableWork",
    "ThrottledDownloader",
    "StallMonitor",
]
/// Files of a modeled exercise that its model checks do not run and that may use types without a
/// twin (GatesAndOnce's `OperationGate` is built on `OperationQueue`).
let unmodeledFiles: [String: [String]] = ["GatesAndOnce": ["OperationGate.swift"]]

/// The folder (below `Model/Learner/<Exercise>/`) with the graded code of `exercise`, or nil when
/// the variant asked for has no folder for it.
func modeledCodeFolder(_ exercise: String) -> String? {
    guard let variant else { return useSolutions ? "Solution" : "Exercise" }
    let path = Context.packageDirectory + "/Grader/Variants/\(exercise)/\(variant)"
    return isFolder(path) ? "Variants/\(variant)" : nil
}

func learnerModelTargets(_ exercise: String) -> [Target] {
    guard let code = modeledCodeFolder(exercise) else { return [] }
    let folder = "Model/Learner/\(exercise)"
    let present = namesOfFiles(in: Context.packageDirectory + "/\(folder)/\(code)")
    var left = (learnerDocuments + (unmodeledFiles[exercise] ?? [])).filter(present.contains).map { "\(code)/\($0)" }
    // The links not in use, and in `Variants` every other variant (and caps.json): SwiftPM warns
    // about files in a target's folder that are neither sources nor excluded.
    left += ["Exercise", "Solution", "Variants"].filter { !code.hasPrefix($0) }
    if code.hasPrefix("Variants/") {
        let variants = namesOfFiles(in: Context.packageDirectory + "/\(folder)/Variants")
        left += variants.map { "Variants/\($0)" }.filter { $0 != code }.sorted()
    }
    let given: [Target.Dependency] = exercisesWithGivenCode.contains(exercise) ? [.target(name: "\(exercise)Given")] : []
    return [
        .target(
            name: "Modeled\(exercise)", dependencies: ["KataModel"] + given + (variant == nil ? [] : ["KataTripwire"]),
            path: folder, exclude: left, sources: [code, "Twins", "Checks"], swiftSettings: [.define("KATA_MODEL")]),
        .executableTarget(
            name: "model-\(exercise)", dependencies: ["KataModel", .target(name: "Modeled\(exercise)")],
            path: "Model/Runners/\(exercise)"),
    ]
}

let learnerModelTargetList: [Target] = learnerModelMode
    ? learnerModeled.filter { !excluded.contains($0) }.flatMap(learnerModelTargets) : []

let graderTargets: [Target] = suitesOnly ? [] : [
    // The grader: scores the suites; its rubric is Grader/rubric.json.
    .target(name: "GraderCore", dependencies: ["KataBench"], path: "Grader/Sources/GraderCore"),
    .executableTarget(name: "grader", dependencies: ["GraderCore"], path: "Grader/Sources/grader"),
]
let usesKataBench = !suitesOnly || !benchmarks.isEmpty

/// The products and targets of this build, one statement at a time: a single expression of a
/// dozen concatenated arrays takes the compiler seconds to type-check, and SwiftPM compiles this
/// manifest again for every environment it has not seen.
var products: [Product] = suitesOnly ? [] : [.executable(name: "grader", targets: ["grader"])]
products += benchmarks.map { Product.executable(name: "bench-\($0)", targets: ["bench-\($0)"]) }

var targets: [Target] = []
targets += exercises.map(exerciseTarget)
targets += exercises.map(exerciseSuite)
targets += exercisesWithGivenCode.map(givenTarget)
targets += exercisesWithSuiteModel.flatMap(suiteModelTargets)
// What every suite uses: start barriers, deadlines, meters, exit-test reports.
targets.append(.target(name: "KataTestSupport", path: "Tests/KataTestSupport", swiftSettings: raceCanarySettings))
targets += graderTargets
if usesKataBench {
    // The benchmarks' harness and the dictionary baselines (finished code, like Given/).
    targets.append(.target(name: "KataBench", path: "Benchmarks/KataBench"))
}
if maintainerTestsBuilt || !benchmarks.isEmpty {
    targets.append(.target(name: "DictionaryBench", dependencies: ["KataBench"], path: "Benchmarks/DictionaryBench"))
}
if maintainerTestsBuilt { targets += maintainerTests }
targets += benchmarks.map(benchmarkExecutable)
if variant != nil {
    // What the "exits early" variants call at each entry point.
    targets.append(.target(name: "KataTripwire", path: "Grader/Variants/Tripwire"))
}
targets += modelTargets
targets += learnerModelTargetList

let package = Package(
    name: "ConcurrencyKata",
    // Without this, SwiftPM builds for macOS 10.13, where async functions, actors and Swift Testing
    // do not exist. Every Xcode 26 (Swift 6.2 or later) itself needs macOS 15.6, so no learner
    // loses anything by it (developer.apple.com/xcode/system-requirements), and `Mutex` (macOS 15)
    // may be used everywhere.
    platforms: [.macOS(.v15)],
    products: products,
    targets: targets,
    swiftLanguageModes: [.v6]
)

