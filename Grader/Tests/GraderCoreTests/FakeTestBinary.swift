import Foundation
@testable import GraderCore

/// A stand-in for the test binary: a shell script that writes a Swift Testing event stream for
/// a suite of three checks, `basics`, `misbehaves` and `later`, where `misbehaves` does what
/// `FAKE_SCENARIO` says (exit 0, print forever, crash, a crash as `swift test` reports it on macOS,
/// or pass; `notstarted` fails as `swift test` does before its run starts). Lets the grader's tests drive the
/// real process handling, rerun and scoring without building anything.
enum FakeTestBinary {
    static let ids = ["basics": "DemoTests.S/basics()/A.swift:1:1", "misbehaves": "DemoTests.S/misbehaves()/A.swift:2:1", "later": "DemoTests.S/later()/A.swift:3:1"]

    static let exercise = Rubric.Exercise(
        name: "Demo", title: "Demo exercise",
        checks: [.init(test: "basics", points: 1), .init(test: "misbehaves", points: 2), .init(test: "later", points: 4)],
        timeoutSeconds: 20)

    static let script = #"""
    #!/bin/sh
    out=""; skip=""; filter=""
    while [ $# -gt 0 ]; do
      case "$1" in
        --event-stream-output-path) out="$2"; shift ;;
        --skip) skip="$2"; shift ;;
        --filter) filter="$2"; shift ;;
      esac
      shift
    done
    rec() { printf '%s\n' "$1" >> "$out"; }
    # The race check's proof that ThreadSanitizer runs: none, or the canaries' reports (Apple's
    # form); `namesonly`: as when `atos` cannot attach and ThreadSanitizer falls back on dladdr,
    # function names without files, for the canaries and for FAKE_RACE alike.
    case "$FAKE_SANITIZER" in
      cannotstart) echo "==77==ERROR: ThreadSanitizer setrlimit() failed 22"; exit 0 ;;
      canaries|childless)
        echo "WARNING: ThreadSanitizer: Swift access race (pid=77)"
        echo "  Modifying access of Swift variable at 0x1 by thread T2:"
        echo "    #0 kataRaceCanaryInParentProcess() RaceCanary.swift:44 (Tests:arm64+0x10)" ;;
      namesonly)
        echo "WARNING: ThreadSanitizer: Swift access race (pid=77)"
        echo "  Modifying access of Swift variable at 0x1 by thread T2:"
        echo "    #0 kataRaceCanaryInParentProcess() (Tests:arm64+0x10)"
        echo "    #1 closure #1 in raceTwoThreads(_:) (Tests:arm64+0x18)"
        echo "WARNING: ThreadSanitizer: Swift access race (pid=78)"
        echo "    #0 kataRaceCanaryInIsolatedCheck() (Tests:arm64+0x20)" ;;
    esac
    if [ "$FAKE_SANITIZER" = canaries ]; then
      echo "WARNING: ThreadSanitizer: Swift access race (pid=78)"
      echo "    #0 kataRaceCanaryInIsolatedCheck() RaceCanary.swift:45 (Tests:arm64+0x20)"
    fi
    # FAKE_RACE ("File.swift:12"), in every run, or only in runs whose filter holds FAKE_RACE_IN_FILTER.
    case "$filter" in *"$FAKE_RACE_IN_FILTER"*) race="$FAKE_RACE" ;; *) race="" ;; esac
    if [ "$FAKE_SANITIZER" = namesonly ] && [ -n "$race" ]; then
      echo "WARNING: ThreadSanitizer: Swift access race (pid=77)"
      echo "  Modifying access of Swift variable at 0x2 by thread T3:"
      echo "    #0 Demo.bump() (Tests:arm64+0x30)"
    elif [ -n "$race" ]; then
      echo "WARNING: ThreadSanitizer: Swift access race (pid=77)"
      echo "  Modifying access of Swift variable at 0x2 by thread T3:"
      echo "    #0 Demo.bump() $race (Tests:arm64+0x30)"
      echo "  Previous read of size 8 at 0x2 by main thread:"
      echo "    #0 Demo.peek() $race (Tests:arm64+0x40)"
    fi
    declare_test() { rec "{\"kind\":\"test\",\"payload\":{\"id\":\"DemoTests.S/$1()/A.swift:$2:1\",\"kind\":\"function\",\"name\":\"$1()\",\"sourceLocation\":{\"fileID\":\"DemoTests/A.swift\",\"line\":$2}},\"version\":0}"; }
    event() { rec "{\"kind\":\"event\",\"payload\":{\"kind\":\"$1\",\"messages\":[],\"testID\":\"DemoTests.S/$2()/A.swift:$3:1\"},\"version\":0}"; }
    if [ "$FAKE_SCENARIO" = notstarted ]; then
      echo "error: could not start swiftpm-testing-helper: No such file or directory"; exit 1
    fi
    declare_test basics 1; declare_test misbehaves 2; declare_test later 3
    rec '{"kind":"event","payload":{"kind":"runStarted","messages":[]},"version":0}'
    event testStarted basics 1; event testEnded basics 1
    case "$skip" in
      *misbehaves*) ;;
      *)
        event testStarted misbehaves 2
        case "$FAKE_SCENARIO" in
          exit0) exit 0 ;;
          flood) yes "learner output that never ends" ;;
          crash) kill -SEGV $$ ;;
          swifttestcrash) echo "error: Exited with unexpected signal code 5"; exit 1 ;;
        esac
        event testEnded misbehaves 2 ;;
    esac
    event testStarted later 3; event testEnded later 3
    rec '{"kind":"event","payload":{"kind":"runEnded","messages":[]},"version":0}'
    exit 0
    """#

    /// A fresh kata layout in a temporary folder with the script; returns the session to run it.
    static func session(scenario: String) throws -> (GradingSession, KataLayout) {
        let root = try TemporaryFolders.make("grader-fake")
        let binary = root.appendingPathComponent("fake-tests.sh")
        try Data(script.utf8).write(to: binary)
        let layout = KataLayout(root: root)
        var session = GradingSession(layout: layout, rubric: Rubric(exercises: [exercise]), mode: BuildMode())
        session.testCommand = ["sh", binary.path]
        session.testEnvironment = ["FAKE_SCENARIO": scenario]
        return (session, layout)
    }
}
