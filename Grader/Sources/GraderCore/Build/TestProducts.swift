import Foundation

/// The test products a build leaves, and the commands that run them.
///
/// The native build system makes one test product of the whole package
/// (`ConcurrencyKataPackageTests`); Swift Build makes one per test target (`<Name>Tests`), run by
/// a process of its own. Where they are and what they are called is SwiftPM's
/// `BuildParameters.binaryRelativePath(for:)` (swift-package-manager, `Sources/SPMBuildCore/
/// BuildParameters/BuildParameters.swift`): in the bin folder, on Linux `<product>.xctest` for
/// every build system in the 6.2 tags (swift-6.2-RELEASE to swift-6.2.4-RELEASE), and from
/// swift-6.3-RELEASE on (6.3.1 and 6.4's branch too) `<product>-test-runner` with Swift Build;
/// on macOS `<product>.xctest/Contents/MacOS/<product>` with both.
struct TestProducts: Sendable {
    var mode: BuildMode
    /// `swift build --show-bin-path` for the mode.
    var binPath: URL

    static let packageProduct = "ConcurrencyKataPackageTests"

    static func of(_ mode: BuildMode, layout: KataLayout) throws -> TestProducts {
        TestProducts(mode: mode, binPath: try SwiftPMFacts(layout: layout).binPath(for: mode))
    }

    /// True when each test target runs in a process of its own.
    var perTarget: Bool { mode.buildSystem.hasProductPerTestTarget }

    /// The product that holds test target `target`.
    func product(of target: String) -> String { perTarget ? target : Self.packageProduct }

    /// The executable file the build leaves for `product`.
    func binary(of product: String) -> URL {
        #if os(Linux)
        perTarget ? Self.swiftBuildLinuxBinary(of: product, in: binPath) : binPath.appendingPathComponent("\(product).xctest")
        #else
        binPath.appendingPathComponent("\(product).xctest/Contents/MacOS/\(product)")
        #endif
    }

    /// A Swift Build test product on Linux: `<product>-test-runner` (SwiftPM 6.3 and later) or
    /// `<product>.xctest` (6.2), whichever the build left; the newer when a folder holds both (a
    /// build folder that two toolchains built), the runner when it holds neither yet.
    static func swiftBuildLinuxBinary(of product: String, in binPath: URL) -> URL {
        let candidates = ["\(product)-test-runner", "\(product).xctest"].map { binPath.appendingPathComponent($0) }
        let built = candidates.compactMap { url -> (URL, Date)? in
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
                  attributes[.type] as? FileAttributeType == .typeRegular else { return nil }
            return (url, attributes[.modificationDate] as? Date ?? .distantPast)
        }
        return built.max { $0.1 < $1.1 }?.0 ?? candidates[0]
    }

    /// The files a build of `targets` leaves, which the build stamp checks: the package's test
    /// binary (native), or each target's. On Linux a Swift Build runner only starts the target's
    /// code, which is linked into `<target>.so` beside it (`ldd` shows it): that library can be
    /// rebuilt without the runner, so it counts too where it is.
    func binaries(of targets: [String]) -> [URL] {
        guard perTarget else { return [binary(of: Self.packageProduct)] }
        return targets.flatMap { target -> [URL] in
            #if os(Linux)
            let library = binPath.appendingPathComponent("\(target).so")
            return [binary(of: target)] + (FileManager.default.fileExists(atPath: library.path) ? [library] : [])
            #else
            return [binary(of: target)]
            #endif
        }
    }

    /// The command that runs the tests of test target `target`, without the options that pick
    /// tests (`BuildMode.testOptions`). With the native system, every target's tests are in the
    /// one product, and a filter picks them.
    func command(target: String) -> [String] {
        #if os(Linux)
        // Running the test binary directly saves SwiftPM's start-up on every suite run.
        return [binary(of: product(of: target)).path, "--testing-library", "swift-testing"]
        #else
        // On macOS the tests are a bundle that only `swift test` runs. `--skip-build` runs only
        // read the build folder: `--ignore-lock` keeps them from waiting on SwiftPM's exclusive lock
        // while the learner runs `swift build` or `swift test` (SwiftCommandState.swift: "Another
        // instance of SwiftPM … is already running using …", waiting). The flag is a hidden
        // option of every command in swift-package-manager's Sources/CoreCommands/Options.swift,
        // `LocationOptions.ignoreLock` (tags swift-6.2-RELEASE and swift-6.3.1-RELEASE), read in
        // SwiftCommandState.swift. With Swift Build, `--test-product` (hidden, `SharedOptions` in
        // Sources/Commands/SwiftTestCommand.swift, same tags) runs one target's product: without it
        // `swift test` runs every product one after another with the same arguments, and each would
        // write over the others' event stream.
        return ["swift", "test", "--skip-build", "--ignore-lock", "--scratch-path", mode.scratchPath]
            + mode.buildSystem.swiftPMArguments + (perTarget ? ["--test-product", target] : [])
            + ["--disable-xctest"] + (mode.sanitize ? ["--sanitize=thread"] : [])
        #endif
    }
}
