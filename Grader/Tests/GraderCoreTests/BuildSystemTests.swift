import Foundation
import Testing
@testable import GraderCore

/// The grader works with either SwiftPM build system: it reads SwiftPM's default from its help,
/// takes `--build-system`, and finds each system's test products where SwiftPM puts them.
@Suite("Build systems")
struct BuildSystemTests {
    @Test("SwiftPM's default is read from the --build-system option's help, in 6.2's, 6.3's and 6.4's words")
    func defaultFromHelp() {
        // SwiftPM 6.3.1 here, verbatim (the lines around the option included).
        let help63 = """
              --explicit-target-dependency-import-check <explicit-target-dependency-import-check>
                                      Check that targets only import their explicitly declared dependencies. (values: none, warn, error; default: none)
              --build-system <build-system>
                                      Specify the build system to use. (default: native)
                    native            - Native Build System
                    swiftbuild        - Swift Build build engine (preview; recommended
                                        for feedback and testing.  Report issues at
                                        https://github.com/swiftlang/swift-package-manager/issues)
              -debug-info-format <debug-info-format>
            """
        #expect(BuildSystem.defaultFromHelp(help63) == .native)
        // 6.4 declares `= .swiftbuild`, and describes each value with "(default)" or "(deprecated)".
        let help64 = help63.replacingOccurrences(of: "(default: native)", with: "(default: swiftbuild)")
            .replacingOccurrences(of: "- Native Build System", with: "- Native Build System (deprecated)")
        #expect(BuildSystem.defaultFromHelp(help64) == .swiftbuild)
        // 6.2's option has no help text of its own.
        #expect(BuildSystem.defaultFromHelp("  --build-system <build-system>\n                          (default: native)\n  --jobs <jobs>") == .native)
        #expect(BuildSystem.defaultFromHelp("  --build-system <build-system>\n  --jobs <jobs>  (default: 4)") == nil,
                "another option's default is not the build system's")
        #expect(BuildSystem.defaultFromHelp("no such option") == nil)
    }

    @Test("A help wrapped at a narrow width is read with its lines joined")
    func wrappedHelp() {
        // SwiftPM 6.3.1 here with COLUMNS=50, verbatim.
        let narrow63 = """
              --build-system <build-system>
                                      Specify the build
                                      system to use.
                                      (default: native)
                    native            - Native Build System
              -debug-info-format <debug-info-format>
            """
        #expect(BuildSystem.defaultFromHelp(narrow63) == .native)
        // 6.4's "(default: swiftbuild)" line is exactly 80 columns: one column less splits it.
        let split64 = """
              --build-system <build-system>
                                      Specify the build system to use. (default:
                                      swiftbuild)
                    native            - Native Build System (deprecated)
                    swiftbuild        - Swift Build build engine (default)
              -debug-info-format <debug-info-format>
            """
        #expect(BuildSystem.defaultFromHelp(split64) == .swiftbuild)
    }

    /// `swift build --experimental-dump-help` (swift-argument-parser's tool info), SwiftPM 6.3.1
    /// here, trimmed to the option and its neighbour.
    static func dumpHelp(default value: String) -> String {
        """
        {
          "command" : {
            "abstract" : "Build sources into binary products.",
            "arguments" : [
              { "abstract" : "The Debug Information Format to use.", "defaultValue" : "dwarf", "isOptional" : true,
                "kind" : "option", "names" : [ { "kind" : "longWithSingleDash", "name" : "debug-info-format" } ] },
              { "abstract" : "Specify the build system to use.", "allValues" : [ "native", "swiftbuild", "xcode" ],
                "defaultValue" : "\(value)", "isOptional" : true, "kind" : "option",
                "names" : [ { "kind" : "long", "name" : "build-system" } ], "sectionTitle" : "Build Options" }
            ],
            "commandName" : "swift-build"
          },
          "serializationVersion" : 0
        }
        """
    }

    @Test("SwiftPM's default is read first from its machine-readable help")
    func defaultFromDumpHelp() {
        #expect(BuildSystem.defaultFromDumpHelp(Self.dumpHelp(default: "native")) == .native)
        #expect(BuildSystem.defaultFromDumpHelp(Self.dumpHelp(default: "swiftbuild")) == .swiftbuild)
        #expect(BuildSystem.defaultFromDumpHelp("warning: something first\n" + Self.dumpHelp(default: "swiftbuild")) == .swiftbuild)
        #expect(BuildSystem.defaultFromDumpHelp(Self.dumpHelp(default: "xcode")) == nil, "a value the grader does not drive")
        #expect(BuildSystem.defaultFromDumpHelp("error: unknown option '--experimental-dump-help'") == nil)
    }

    @Test("Linux's Swift Build test product: <name>-test-runner (SwiftPM 6.3 on) or <name>.xctest (6.2), whichever the build left")
    func swiftBuildLinuxProducts() throws {
        let bin = FileManager.default.temporaryDirectory.appendingPathComponent("grader-products-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: bin) }
        #expect(TestProducts.swiftBuildLinuxBinary(of: "ATests", in: bin).lastPathComponent == "ATests-test-runner", "nothing built yet")
        // SwiftPM 6.2 (BuildParameters.binaryRelativePath, tag swift-6.2-RELEASE): `<name>.xctest`.
        try Data().write(to: bin.appendingPathComponent("ATests.xctest"))
        #expect(TestProducts.swiftBuildLinuxBinary(of: "ATests", in: bin).lastPathComponent == "ATests.xctest")
        #if os(Linux)
        let products = TestProducts(mode: BuildMode(buildSystem: .swiftbuild), binPath: bin)
        #expect(products.command(target: "ATests").first == bin.appendingPathComponent("ATests.xctest").path)
        #expect(products.binaries(of: ["ATests"]) == [bin.appendingPathComponent("ATests.xctest")])
        #endif
        // A newer build by 6.3 in the same folder: its runner.
        let runner = bin.appendingPathComponent("ATests-test-runner")
        try Data().write(to: runner)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: runner.path)
        #expect(TestProducts.swiftBuildLinuxBinary(of: "ATests", in: bin) == runner)
    }

    @Test("--build-system takes native or swiftbuild and goes into every SwiftPM command of the build")
    func argument() throws {
        #expect(try Arguments.parse(["--build-system", "swiftbuild"]).buildSystem == .swiftbuild)
        #expect(try Arguments.parse(["verify", "--build-system", "native"]).buildSystem == .native)
        #expect(try Arguments.parse([]).buildSystem == nil)
        #expect(throws: GraderError.self) { try Arguments.parse(["--build-system", "xcode"]) }
        let mode = BuildMode(solutions: true, buildSystem: .swiftbuild)
        #expect(mode.buildArguments.suffix(2) == ["--build-system", "swiftbuild"])
        #expect(mode.sanitized.buildArguments.suffix(3) == ["--build-system", "swiftbuild", "--sanitize=thread"])
        #expect(mode.binPathArguments.contains("--show-bin-path") && mode.binPathArguments.contains("swiftbuild"))
    }

    @Test("The native system's one test product holds every suite; Swift Build has a runner per suite")
    func products() {
        let bin = URL(fileURLWithPath: "/k/.build/out/Products/Debug-linux")
        let swiftBuild = TestProducts(mode: BuildMode(buildSystem: .swiftbuild), binPath: bin)
        let native = TestProducts(mode: BuildMode(), binPath: URL(fileURLWithPath: "/k/.build/x86_64-unknown-linux-gnu/debug"))
        #expect(swiftBuild.perTarget && !native.perTarget)
        #if os(Linux)
        #expect(swiftBuild.command(target: "ATests").first == "/k/.build/out/Products/Debug-linux/ATests-test-runner")
        #expect(native.command(target: "ATests").first == "/k/.build/x86_64-unknown-linux-gnu/debug/ConcurrencyKataPackageTests.xctest")
        #else
        #expect(swiftBuild.command(target: "ATests").contains("--ignore-lock"))
        #expect(swiftBuild.command(target: "ATests").suffix(3).contains("ATests"))
        #expect(native.command(target: "ATests").contains("--ignore-lock") && !native.command(target: "ATests").contains("--test-product"))
        #endif
        #expect(native.binaries(of: ["ATests", "BTests"]).count == 1)
    }
}
