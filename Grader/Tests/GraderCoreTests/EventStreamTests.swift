import Foundation
import Testing
@testable import GraderCore

/// Event-stream lines as Swift Testing 6.3 writes them (trimmed to the fields the grader reads).
enum Fixture {
    static let lines = [
        #"{"kind":"test","payload":{"displayName":"Lost updates","id":"DemoTests.LostUpdates","kind":"suite","name":"LostUpdates","sourceLocation":{"fileID":"DemoTests/A.swift","line":3}},"version":0}"#,
        #"{"kind":"test","payload":{"displayName":"Increments are never lost","id":"DemoTests.LostUpdates/incrementsAreNeverLost()/A.swift:5:6","kind":"function","name":"incrementsAreNeverLost()","sourceLocation":{"fileID":"DemoTests/A.swift","line":5}},"version":0}"#,
        #"{"kind":"test","payload":{"id":"DemoTests.LostUpdates/basics()/A.swift:2:6","kind":"function","name":"basics()","sourceLocation":{"fileID":"DemoTests/A.swift","line":2}},"version":0}"#,
        #"{"kind":"test","payload":{"displayName":"Hangs","id":"DemoTests.LostUpdates/hangs()/B.swift:9:6","kind":"function","name":"hangs()","sourceLocation":{"fileID":"DemoTests/B.swift","line":9}},"version":0}"#,
        #"{"kind":"event","payload":{"kind":"runStarted","messages":[]},"version":0}"#,
        #"{"kind":"event","payload":{"kind":"testStarted","messages":[],"testID":"DemoTests.LostUpdates/basics()/A.swift:2:6"},"version":0}"#,
        #"{"kind":"event","payload":{"kind":"testEnded","messages":[],"testID":"DemoTests.LostUpdates/basics()/A.swift:2:6"},"version":0}"#,
        #"{"kind":"event","payload":{"kind":"testStarted","messages":[],"testID":"DemoTests.LostUpdates/incrementsAreNeverLost()/A.swift:5:6"},"version":0}"#,
        #"{"kind":"event","payload":{"issue":{"isKnown":true},"kind":"issueRecorded","messages":[{"symbol":"fail","text":"known"}],"testID":"DemoTests.LostUpdates/incrementsAreNeverLost()/A.swift:5:6"},"version":0}"#,
        #"{"kind":"event","payload":{"issue":{"isKnown":false,"sourceLocation":{"fileID":"DemoTests/A.swift","line":7}},"kind":"issueRecorded","messages":[{"symbol":"fail","text":"Issue recorded"},{"symbol":"details","text":"3 increments were lost."}],"testID":"DemoTests.LostUpdates/incrementsAreNeverLost()/A.swift:5:6"},"version":0}"#,
        #"{"kind":"event","payload":{"kind":"testEnded","messages":[],"testID":"DemoTests.LostUpdates/incrementsAreNeverLost()/A.swift:5:6"},"version":0}"#,
        #"{"kind":"event","payload":{"kind":"testStarted","messages":[],"testID":"DemoTests.LostUpdates/hangs()/B.swift:9:6"},"version":0}"#,
        "not json at all",
    ]

    static var stream: EventStream {
        var stream = EventStream()
        for line in lines { stream.consume(line: Data(line.utf8)) }
        return stream
    }

    static let exercise = Rubric.Exercise(
        name: "Demo", title: "Demo exercise",
        checks: [.init(test: "basics", points: 1), .init(test: "incrementsAreNeverLost", points: 2), .init(test: "hangs", points: 3)],
        timeoutSeconds: 30)
}

@Suite("Event stream")
struct EventStreamTests {
    @Test("A skipped test is skipped, never passed, and stays so through a merge")
    func skipped() {
        var stream = EventStream()
        stream.consume(line: Data(#"{"kind":"event","payload":{"kind":"testSkipped","messages":[],"testID":"DemoTests.Gated/built()/C.swift:1:6"},"version":0}"#.utf8))
        var merged = EventStream()
        merged.merge(stream)
        for run in [stream.runs["DemoTests.Gated/built()/C.swift:1:6"], merged.runs["DemoTests.Gated/built()/C.swift:1:6"]] {
            #expect(run?.skipped == true)
            #expect(run?.passed == false)
        }
    }

    @Test("Test records give names without (), display names, and source order")
    func declarations() {
        let stream = Fixture.stream
        #expect(stream.declared.map(\.name) == ["incrementsAreNeverLost", "basics", "hangs"])
        #expect(stream.declared[1].displayName == "basics")
        #expect(stream.functionsInSourceOrder.map(\.name) == ["basics", "incrementsAreNeverLost", "hangs"])
    }

    @Test("Issues are attached to their test; known issues do not count; the comment is the message")
    func issues() {
        let stream = Fixture.stream
        let increments = stream.runs["DemoTests.LostUpdates/incrementsAreNeverLost()/A.swift:5:6"]
        #expect(increments?.issues == [IssueReport(message: "3 increments were lost.", file: "DemoTests/A.swift", line: 7)])
        #expect(stream.runs["DemoTests.LostUpdates/basics()/A.swift:2:6"]?.passed == true)
    }

    @Test("A test that started and never ended is what was running when the process stopped")
    func unfinished() {
        let stream = Fixture.stream
        #expect(stream.unfinished.map(\.name) == ["hangs"])
        #expect(!stream.runEnded)
    }
}

@Suite("Scoring")
struct ScoringTests {
    @Test("Points only for checks that passed; a deadline names the running check")
    func timedOut() {
        let result = Scoring.score(Fixture.exercise, runs: [Fixture.stream], terminations: [.timedOut], deadline: 30, seconds: 30)
        #expect(result.points == 1)
        #expect(result.totalPoints == 6)
        #expect(result.checks.map(\.passed) == [true, false, false])
        #expect(result.checks[1].message == "3 increments were lost.")
        #expect(result.status == .timedOut(runningTest: "Hangs", seconds: 30))
    }

    @Test("A signal becomes crashed in the running check; a clean end with failures is in progress")
    func crashedAndInProgress() {
        let crashed = Scoring.score(Fixture.exercise, runs: [Fixture.stream], terminations: [.signalled(11)], deadline: 30, seconds: 1)
        #expect(crashed.status == .crashed(signal: 11, runningTest: "Hangs"))
        #expect(Scoring.crashExplanation(11).contains("two threads"))

        var finished = Fixture.stream
        finished.consume(line: Data(#"{"kind":"event","payload":{"kind":"testEnded","testID":"DemoTests.LostUpdates/hangs()/B.swift:9:6"},"version":0}"#.utf8))
        finished.consume(line: Data(#"{"kind":"event","payload":{"kind":"runEnded"},"version":0}"#.utf8))
        let inProgress = Scoring.score(Fixture.exercise, runs: [finished], terminations: [.exited(1)], deadline: 30, seconds: 1)
        #expect(inProgress.status == .inProgress(firstFailing: "Increments are never lost"))
        #expect(inProgress.points == 4)
    }

    @Test("With repetitions a check counts only if it passed every time")
    func repetitions() {
        var good = EventStream()
        var bad = EventStream()
        for line in Fixture.lines.prefix(4) {
            good.consume(line: Data(line.utf8))
            bad.consume(line: Data(line.utf8))
        }
        for id in ["DemoTests.LostUpdates/basics()/A.swift:2:6", "DemoTests.LostUpdates/incrementsAreNeverLost()/A.swift:5:6", "DemoTests.LostUpdates/hangs()/B.swift:9:6"] {
            for line in [#"{"kind":"event","payload":{"kind":"testStarted","testID":"\#(id)"},"version":0}"#,
                         #"{"kind":"event","payload":{"kind":"testEnded","testID":"\#(id)"},"version":0}"#] {
                good.consume(line: Data(line.utf8))
                bad.consume(line: Data(line.utf8))
            }
        }
        bad.consume(line: Data(#"{"kind":"event","payload":{"issue":{"isKnown":false},"kind":"issueRecorded","messages":[{"text":"flaky"}],"testID":"DemoTests.LostUpdates/hangs()/B.swift:9:6"},"version":0}"#.utf8))
        let result = Scoring.score(Fixture.exercise, runs: [good, bad, good], terminations: [.exited(0), .exited(1), .exited(0)], deadline: 30, seconds: 1)
        #expect(result.checks.map(\.passed) == [true, true, false])
        #expect(result.checks[2].message == "flaky")
    }

    @Test("A rubric check the suite does not declare fails with a message about edited tests")
    func missingTest() {
        var exercise = Fixture.exercise
        exercise.checks.append(.init(test: "vanished", points: 1))
        let result = Scoring.score(exercise, runs: [Fixture.stream], terminations: [.exited(1)], deadline: 30, seconds: 1)
        #expect(result.checks.last?.passed == false)
        #expect(result.checks.last?.message?.contains("were the tests edited?") == true)
    }
}
