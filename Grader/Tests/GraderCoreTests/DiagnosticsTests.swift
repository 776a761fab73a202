import Foundation
import Testing
@testable import GraderCore

@Suite("Compile errors and sanitizer reports")
struct DiagnosticsTests {
    @Test("Errors are attributed to the exercise that owns the file")
    func attribution() {
        let output = """
        [3/20] Compiling ThreadSafeDictionary ThreadSafeDictionary.swift
        /kata/Exercises/ThreadSafeDictionary/ThreadSafeDictionary.swift:12:9: error: cannot find 'storage' in scope
        /kata/Exercises/ThreadSafeDictionary/ThreadSafeDictionary.swift:12:9: error: cannot find 'storage' in scope
        /kata/Tests/AsyncOperationTests/KVOTests.swift:4:1: error: expected declaration
        /kata/Given/DependencyPipeline/Bitmap.swift:1:1: error: oops
        /kata/Tests/KataTestSupport/Locked.swift:2:2: error: broken support
        /kata/Exercises/ThreadSafeDictionary/ThreadSafeDictionary.swift:3:1: warning: unused
        error: fatalError
        """
        let names = ["ThreadSafeDictionary", "AsyncOperation", "DependencyPipeline"]
        let errors = CompilerDiagnostics.errors(in: output, exercises: names, root: "/kata")
        #expect(errors.map(\.exercise) == ["ThreadSafeDictionary", "AsyncOperation", "DependencyPipeline", nil])
        #expect(errors[0] == CompileError(
            file: "Exercises/ThreadSafeDictionary/ThreadSafeDictionary.swift", line: 12, column: 9,
            message: "cannot find 'storage' in scope", exercise: "ThreadSafeDictionary"))
    }

    /// On a Mac, Foundation spells a clone under /tmp as `/tmp/…` while the compiler says
    /// `/private/tmp/…` (and the same for /var): the error must still be the exercise's, with a
    /// path inside the clone, on the screen and in JSON, JUnit and Classroom output.
    @Test("A /private/tmp path from the compiler is inside a root of /tmp, and the other way round")
    func privatePrefix() {
        let output = """
        /private/tmp/kata/Exercises/ThreadSafeDictionary/ThreadSafeDictionary.swift:12:9: error: cannot find 'storage' in scope
        /var/folders/x/T/kata/Tests/AsyncOperationTests/KVOTests.swift:4:1: error: expected declaration
        """
        let names = ["ThreadSafeDictionary", "AsyncOperation"]
        let fromTmp = CompilerDiagnostics.errors(in: output, exercises: names, root: "/tmp/kata")
        #expect(fromTmp.first?.file == "Exercises/ThreadSafeDictionary/ThreadSafeDictionary.swift")
        #expect(fromTmp.first?.exercise == "ThreadSafeDictionary")
        let fromVar = CompilerDiagnostics.errors(in: output, exercises: names, root: "/private/var/folders/x/T/kata")
        #expect(fromVar.map(\.file).last == "Tests/AsyncOperationTests/KVOTests.swift")
        // Only the folders macOS links into /private; a look-alike outside the clone stays whole.
        #expect(CompilerDiagnostics.errors(in: output, exercises: names, root: "/private/tmpkata").first?.file
                == "/private/tmp/kata/Exercises/ThreadSafeDictionary/ThreadSafeDictionary.swift")
        let layout = KataLayout(root: URL(fileURLWithPath: "/tmp/kata"))
        #expect(layout.relative(URL(fileURLWithPath: "/private/tmp/kata/.kata/runs/all.log")) == ".kata/runs/all.log")
        #expect(layout.relative(URL(fileURLWithPath: "/private/var/elsewhere/x.log")) == "/private/var/elsewhere/x.log")
    }

    @Test("A ThreadSanitizer report names the first frame in the exercise's own code")
    func sanitizer() {
        let report = """
        ==================
        WARNING: ThreadSanitizer: data race (pid=123)
          Write of size 8 at 0x7b0c00000010 by thread T2:
            #0 swift_retain <null> (libswiftCore.so+0x1)
            #1 ThreadSafeDictionary.subscript.setter /kata/Exercises/ThreadSafeDictionary/ThreadSafeDictionary.swift:27:31 (x+0x2)
            #2 closure /kata/Tests/ThreadSafeDictionaryTests/MemorySafetyTests.swift:40:9 (x+0x3)
        """
        let findings = SanitizerReport.findings(in: report, exercise: "ThreadSafeDictionary")
        #expect(findings.map { [$0.summary, $0.file, $0.line.map(String.init)] } == [["data race (pid=123)", "Exercises/ThreadSafeDictionary/ThreadSafeDictionary.swift", "27"]])
        #expect(SanitizerReport.findings(in: "all good", exercise: "ThreadSafeDictionary").isEmpty)
        let variant = """
            WARNING: ThreadSanitizer: data race (pid=7)
                #3 $s14AsyncOperationAAC6finishyyF /work/k/Grader/Variants/AsyncOperation/Unsynchronized/AsyncOperation.swift:71:15 (x+0x1)
            """
        #expect(SanitizerReport.findings(in: variant, exercise: "AsyncOperation").first?.file
            == "Grader/Variants/AsyncOperation/Unsynchronized/AsyncOperation.swift", "verify's variants are the exercise's own code")
    }

    /// Measured on this toolchain: four threads incrementing inside `Mutex.withLock`, compiled with
    /// `-sanitize=thread`, get this report (trimmed), though the mutex keeps them apart.
    static func mutexReport(previousInsideLock: Bool) -> String {
        let body = "$s4Gate4BoxC4bumpyyFySizYuYTXEfU_"
        return """
            WARNING: ThreadSanitizer: Swift access race (pid=25625)
              Modifying access of Swift variable at 0x720800000038 by thread T3:
                #0 \(body) /k/Exercises/Gate/Gate.swift (x+0xfd45e)
                #1 $s4Gate4BoxC4bumpyyF /k/Exercises/Gate/Gate.swift:5:68 (x+0xfd348)

              Previous write of size 8 at 0x720800000038 by thread T1:
                #0 \(previousInsideLock ? body : "$s4Gate4BoxC4peekSiyF") /k/Exercises/Gate/Gate.swift:9:82 (x+0xfd48d)
                #1 $s4Gate4BoxC4bumpyyF /k/Exercises/Gate/Gate.swift:5:68 (x+0xfd348)

            SUMMARY: ThreadSanitizer: Swift access race /k/Exercises/Gate/Gate.swift
            """
    }

    @Test("Two accesses both inside Mutex.withLock bodies are not a race (Linux's TSan cannot see Mutex); one outside is")
    func mutexBodies() {
        #expect(SanitizerReport.findings(in: Self.mutexReport(previousInsideLock: true), exercise: "Gate").isEmpty)
        #expect(SanitizerReport.findings(in: Self.mutexReport(previousInsideLock: false), exercise: "Gate").count == 1)
    }
}
