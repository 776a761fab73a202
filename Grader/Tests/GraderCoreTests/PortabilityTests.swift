import Foundation
import Testing
@testable import GraderCore

/// The portability check reads the sources as a Mac's compiler would. Each case is a mistake that
/// breaks the build on a Mac, and its guarded or fixed twin that must pass.
@Suite("Portability to macOS and Swift 6.2")
struct PortabilityTests {
    static let mac = CompilationConditions.macConfigurations[0]

    @Test("#if branches are evaluated for macOS: Linux-only branches are off, nesting and #else work")
    func conditions() {
        let text = SwiftSourceText("""
            #if canImport(Glibc)
            linux()
            #elseif canImport(Darwin)
            darwin()
            #else
            other()
            #endif
            #if os(Linux) || (arch(arm64) && !canImport(Glibc))
            either()
            #if compiler(>=6.3)
            newer()
            #endif
            #endif
            """)
        let active = text.activeLines(on: Self.mac)
        let compiled = zip(text.code, active).filter(\.1).map { $0.0.trimmingCharacters(in: .whitespaces) }
        #expect(compiled == ["darwin()", "either()"], "macOS arm64 with Swift 6.2 compiles only these")
        let intel63 = CompilationConditions(os: "macOS", arch: "x86_64", compiler: [6, 3], importable: CompilationConditions.appleModules)
        #expect(zip(text.code, text.activeLines(on: intel63)).filter(\.1).map { $0.0.trimmingCharacters(in: .whitespaces) } == ["darwin()"])
    }

    @Test("Comments and string literals are not code")
    func blanking() {
        let text = SwiftSourceText(#"""
            let a = "st_mtim /* not a comment" // st_mtim
            /* gettid()
               /* nested */ RUSAGE_THREAD */ let b = #"raw "quote" gettid()"#
            let c = """
                /proc/self
                """
            """#)
        let joined = text.code.joined(separator: "\n")
        for word in ["st_mtim", "gettid", "RUSAGE_THREAD", "/proc", "nested"] { #expect(!joined.contains(word), "\(word) was left in \(joined)") }
        #expect(joined.contains("let b = #\""))
        #expect(text.code.count == 6, "line breaks are kept, so line numbers stay")
    }

    /// A checkout of `files` (path → text) in a temporary folder.
    static func checkout(_ files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kata-portability-\(UUID().uuidString)")
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return root
    }

    static let asyncCode = "func f() async { await g() }\n"

    @Test("No platforms: SwiftPM's macOS 10.13 is too old for async code; macOS 15 is enough")
    func platforms() throws {
        let missing = try Self.checkout(["Package.swift": "// swift-tools-version: 6.2\nlet package = Package(name: \"P\")\n", "Exercises/A/A.swift": Self.asyncCode])
        defer { try? FileManager.default.removeItem(at: missing) }
        let problems = PortabilityCheck(root: missing).problems()
        #expect(problems.count == 1)
        #expect(problems.first?.contains("declares no `platforms:`, so SwiftPM builds for macOS 10.13") == true)
        #expect(problems.first?.contains("Exercises/A/A.swift:1") == true)

        let low = try Self.checkout(["Package.swift": "// swift-tools-version: 6.2\nlet package = Package(name: \"P\", platforms: [.macOS(.v14)])\n", "Tests/A/A.swift": "import Synchronization\n" + Self.asyncCode])
        defer { try? FileManager.default.removeItem(at: low) }
        #expect(PortabilityCheck(root: low).problems().first?.contains("declares macOS 14, but the Synchronization module (Mutex, Atomic) needs macOS 15.0") == true)

        let enough = try Self.checkout(["Package.swift": "// swift-tools-version: 6.2\nlet package = Package(name: \"P\", platforms: [.macOS(.v15)])\n", "Tests/A/A.swift": "import Synchronization\n" + Self.asyncCode])
        defer { try? FileManager.default.removeItem(at: enough) }
        #expect(PortabilityCheck(root: enough).problems().isEmpty)
    }

    static let exitTestWithCapture = """
        func t() async {
            await #expect(processExitsWith: .failure) {
                [n = n as Int] in
                use(n)
            }
        }
        """

    @Test("Capture lists in exit tests need tools version 6.3; exit tests need 6.2")
    func exitTests() throws {
        let manifest = { (tools: String) in "// swift-tools-version: \(tools)\nlet package = Package(name: \"P\", platforms: [.macOS(.v15)])\n" }
        let old = try Self.checkout(["Package.swift": manifest("6.2"), "Tests/A/A.swift": Self.exitTestWithCapture])
        defer { try? FileManager.default.removeItem(at: old) }
        let problems = PortabilityCheck(root: old).problems()
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("Tests/A/A.swift:2: a capture list in an exit test's closure is Swift 6.3") == true)

        let new = try Self.checkout(["Package.swift": manifest("6.3"), "Tests/A/A.swift": Self.exitTestWithCapture])
        defer { try? FileManager.default.removeItem(at: new) }
        #expect(PortabilityCheck(root: new).problems().isEmpty)

        let tooOld = try Self.checkout(["Package.swift": manifest("6.1"), "Tests/A/A.swift": "func t() async { await #expect(processExitsWith: .failure) { f() } }"])
        defer { try? FileManager.default.removeItem(at: tooOld) }
        #expect(PortabilityCheck(root: tooOld).problems().first?.contains("exit tests (Tests/A/A.swift:1) need Swift 6.2") == true)
    }

    @Test("A Linux-only symbol is found outside a guard and not inside one")
    func linuxOnlySymbols() throws {
        let root = try Self.checkout([
            "Package.swift": "// swift-tools-version: 6.2\nlet package = Package(name: \"P\", platforms: [.macOS(.v15)])\n",
            "Tests/A/Bare.swift": "import Glibc\nlet usage = getrusage(RUSAGE_THREAD, &u)\n",
            "Tests/A/Guarded.swift": "#if canImport(Glibc)\nimport Glibc\nlet usage = getrusage(RUSAGE_THREAD, &u)\n#elseif canImport(Darwin)\nimport Darwin\n#endif\n// RUSAGE_THREAD in a comment\n",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let problems = PortabilityCheck(root: root).problems()
        #expect(problems.count == 2)
        #expect(problems.allSatisfy { $0.hasPrefix("Tests/A/Bare.swift:") })
    }

    @Test("The driver's printed job is split as a shell would: quotes, escapes, a path with spaces, a comma and Chinese")
    func driverJobWords() {
        #expect(FrontendCommand.words(#"/usr/bin/swift-frontend -frontend -primary-file '/tmp/a b, 学/x y.swift' -I "q \"r\"" s\ t"#)
                == ["/usr/bin/swift-frontend", "-frontend", "-primary-file", "/tmp/a b, 学/x y.swift", "-I", #"q "r""#, "s t"])
        #expect(FrontendCommand.words("a 'b") == nil)
    }

    @Test("Only a file that names wait, lock, unlock or a pthread function is type-checked in full")
    func blockingCallNames() {
        #expect(AsyncContextCheck.mentionsBlockingCall("semaphore.wait()"))
        #expect(AsyncContextCheck.mentionsBlockingCall("let f = lock.lock"))
        #expect(AsyncContextCheck.mentionsBlockingCall("pthread_mutex_lock(&m)"))
        #expect(!AsyncContextCheck.mentionsBlockingCall("state.withLock { $0 += 1 }; let l = NSLock(); waitForIt(); unlocked = true"))
    }

    /// (`NSLock.lock()` in async code is an error on Linux too: corelibs marks it `noasync`.)
    @Test("A blocking call Apple marks noasync is found in async code, not in a synchronous closure inside it")
    func noasyncCalls() throws {
        #if os(Linux)
        let root = try Self.checkout(["Sources/M/M.swift": """
            import Foundation
            import Dispatch
            func parks() async {
                let semaphore = DispatchSemaphore(value: 0)
                semaphore.wait()
                let lock = NSLock()
                Thread { lock.lock(); lock.unlock() }.start()
                lock.withLock { }
                Task { DispatchGroup().wait() }
                var mutex = pthread_mutex_t()
                pthread_mutex_lock(&mutex)
            }
            func plain() { DispatchGroup().wait() }
            """])
        defer { try? FileManager.default.removeItem(at: root) }
        let check = AsyncContextCheck(root: root, scratchPath: ".build", binPath: root.appendingPathComponent(".build/debug"))
        let findings = try check.findings(in: "M", sources: [root.appendingPathComponent("Sources/M/M.swift").path])
        #expect(findings.map(\.api) == ["DispatchSemaphore.wait()", "DispatchGroup.wait()", "pthread_mutex_lock()"])
        #expect(findings.map { $0.location.components(separatedBy: ":").dropFirst().first ?? "" } == ["5", "9", "11"])
        #endif
    }
}
