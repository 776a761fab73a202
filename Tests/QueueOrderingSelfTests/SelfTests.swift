// The suite's own tests: the derivation of possible outputs, and that the jitter reaches every
// possible output within the runs the checks make. They are an ordinary test target, always built,
// but not graded checks (the rubric does not list them, and they pass on the untouched stub). By hand:
//
//     swift build --build-tests
//     .build/debug/ConcurrencyKataPackageTests.xctest --testing-library swift-testing \
//         --filter QueueOrderingSelfTests
import Foundation
import QueueOrderingGiven
import QueueOrderingModel
import Testing

@Suite("QueueOrdering: the happens-before derivation")
struct QueueOrderingSelfTests_Derivation {
    typealias O = HappensBefore.Order

    @Test("No order at all: every permutation")
    func noOrder() {
        #expect(HappensBefore(labels: [1, 2, 3], orders: []).possibleOutputs() == ["123", "132", "213", "231", "312", "321"])
    }

    @Test("A chain: one output")
    func chain() {
        let model = HappensBefore(labels: [1, 2, 3], orders: [O(before: 1, after: 2, rule: "a"), O(before: 2, after: 3, rule: "b")])
        #expect(model.possibleOutputs() == ["123"])
    }

    @Test("A cycle: no output")
    func cycle() {
        let model = HappensBefore(labels: [1, 2], orders: [O(before: 1, after: 2, rule: "a"), O(before: 2, after: 1, rule: "b")])
        #expect(model.possibleOutputs().isEmpty)
    }

    @Test("Serial async: the five outputs worked out by hand")
    func serialAsyncByHand() {
        #expect(Puzzle.serialAsync.happensBefore.possibleOutputs() == ["1234", "1243", "2134", "2143", "2413"])
        #expect(Puzzle.concurrentAsync.happensBefore.possibleOutputs().count == 8)
        #expect(Puzzle.serialAsyncInsideSync.happensBefore.possibleOutputs() == ["12435", "12453"])
    }

    @Test("A deadlock leaves out the labels that are never printed")
    func deadlock() {
        #expect(Puzzle.serialSyncInsideAsync.happensBefore.possibleOutputs() == ["125", "152"])
        #expect(Puzzle.semaphoreOnOneSerialQueue.happensBefore.possibleOutputs() == ["14", "41"])
    }

    @Test("An impossible output names the rule it breaks")
    func namesTheRule() throws {
        let why = try #require(Puzzle.serialAsync.happensBefore.whyImpossible("3124"))
        #expect(why.contains("3 cannot come before 1") && why.contains("serial queue"))
        let seed = try #require(Puzzle.serialAsyncInsideSync.happensBefore.whyImpossible("12345"))
        #expect(seed.contains("3 cannot come before 4"))
        let never = try #require(Puzzle.serialSyncInsideAsync.happensBefore.whyImpossible("12345"))
        #expect(never.contains("3, which is never printed"))
        #expect(Puzzle.serialSyncInsideAsync.happensBefore.whyImpossible("12")?.contains("not where this puzzle stops") == true)
        #expect(Puzzle.serialAsync.happensBefore.whyImpossible("12a4")?.contains("not an output") == true)
        #expect(Puzzle.serialAsync.happensBefore.whyImpossible("1124")?.contains("twice") == true)
        #expect(Puzzle.serialAsync.happensBefore.whyImpossible("124")?.contains("leaves out 3") == true)
    }

    @Test("Derivation and explanation agree on every permutation of every puzzle", arguments: Puzzle.allCases)
    func agree(_ puzzle: Puzzle) {
        let model = puzzle.happensBefore
        let possible = model.possibleOutputs()
        #expect(!possible.isEmpty)
        for output in permutations(model.printed) {
            #expect((model.whyImpossible(output) == nil) == possible.contains(output), "\(puzzle): \(output)")
        }
    }

    private func permutations(_ labels: [Int]) -> [String] {
        if labels.isEmpty { return [""] }
        return labels.flatMap { label in permutations(labels.filter { $0 != label }).map { String(label) + $0 } }
    }
}

@Suite("QueueOrdering: the jitter reaches every possible output")
struct QueueOrderingSelfTests_Reach {
    /// The rarest orders come a few times in 2,000 runs (2341 of concurrentAsync: 10 in 2,000 on
    /// a quiet machine), and less often while other tests load the machine, so reaching them is
    /// asked of up to three batches: a miss then means the jitter cannot reach an order, not bad luck.
    @Test("In-process puzzles: every possible output within three batches of RunBudget.runs runs", arguments: Puzzle.allCases.filter { !$0.happensBefore.deadlocks })
    func inProcess(_ puzzle: Puzzle) async {
        let possible = puzzle.happensBefore.possibleOutputs()
        var seen = Set<String>()
        var unfinished = 0
        var finished = 0
        for batch in 1...3 {
            let tally = await PuzzleRuns.tallyOnThread(puzzle, runs: RunBudget.runs)
            seen.formUnion(tally.outputs)
            unfinished += tally.unfinished
            finished += tally.runs
            print("REACH \(puzzle) batch \(batch) runs=\(tally.runs) possible=\(possible.count) seen=\(seen.count): \(tally.summary)")
            if seen.isSuperset(of: possible) { break }
        }
        #expect(seen == possible, "\(puzzle): missing \(possible.subtracting(seen).sorted()), outside the model \(seen.subtracting(possible).sorted())")
        // A printer that loses labels leaves every run unfinished; a machine too loaded to
        // schedule a thread for 2 s (verify runs these beside other suites) leaves a rare one.
        #expect(unfinished * 100 <= finished, "\(unfinished) runs did not print every label within \(PuzzleRuns.runSeconds) s, \(finished) did")
    }

    @Test("In-process puzzles as the checks run them (at most RunBudget.runSeconds each): nothing outside the model", arguments: Puzzle.allCases.filter { !$0.happensBefore.deadlocks })
    func asTheChecksRunThem(_ puzzle: Puzzle) async {
        let tally = await PuzzleRuns.tallyOnThread(puzzle, runs: RunBudget.runs, seconds: RunBudget.runSeconds)
        let possible = puzzle.happensBefore.possibleOutputs()
        print("CAPPED \(puzzle) runs=\(tally.runs) seen=\(tally.outputs.count) of \(possible.count)")
        #expect(tally.outputs.isSubset(of: possible))
    }

    @Test("The puzzle libdispatch stops: every output within three batches of RunBudget.stoppedChildren child processes")
    func stopped() async throws {
        let puzzle = Puzzle.serialSyncInsideAsync
        let possible = puzzle.happensBefore.possibleOutputs()
        // About one child in seven prints 125 before the stop (measured: 56 of 387), so one batch of
        // 24 children, which is what the check runs, misses it about one time in 20 (the check then
        // says that no rule forbids it). Up to three batches make a miss here about one in 10,000;
        // one batch is usually enough.
        var complete = Tally(), cut = Tally(), batches = 0
        while batches < 3 && complete.outputs != possible {
            batches += 1
            let stops = try #require(await Isolated.stops(of: puzzle, children: RunBudget.stoppedChildren))
            for stop in stops { if stop.isComplete(of: puzzle) { complete.add(stop.output) } else { cut.add(stop.output) } }
        }
        print("REACH \(puzzle) children=\(complete.runs + cut.runs) in \(batches) batches, whole outputs: \(complete.summary); stopped earlier: \(cut.summary)")
        #expect(complete.outputs == possible)
        for beginning in cut.outputs { #expect(possible.contains { $0.hasPrefix(beginning) }) }
    }

    @Test("The puzzle that hangs, RunBudget.hangingRuns runs in one child process")
    func hanging() async throws {
        let puzzle = Puzzle.semaphoreOnOneSerialQueue
        let tally = try #require(await Isolated.hangingRuns(of: puzzle))
        print("REACH \(puzzle) runs=\(tally.runs): \(tally.summary)")
        #expect(tally.outputs == puzzle.happensBefore.possibleOutputs())
    }
}

@Suite("QueueOrdering: runs that miss their deadline")
struct QueueOrderingSelfTests_Unfinished {
    /// Every label waits 5 ms before it is printed, and each run has a deadline of 1 µs: the label
    /// the serial queue prints after the caller's part (3) comes well after the deadline, so runs
    /// end unfinished with a partial output ("2", "12", "21"). On an overloaded machine the same
    /// happens with the real deadline; a partial output counted as printed would read "you missed
    /// 21" to a learner whose prediction was right.
    @Test("An unfinished run counts as unfinished, and its partial output is not an output")
    func unfinishedRunsAreNotOutputs() async {
        let puzzle = Puzzle.asyncAfterVersusAsync
        let tally = await withCheckedContinuation { (continuation: CheckedContinuation<Tally, Never>) in
            Thread {
                continuation.resume(returning: PuzzleRuns.tally(puzzle, runs: 10, runSeconds: 0.000_001, pause: { usleep(5_000) }))
            }.start()
        }
        print("UNFINISHED \(puzzle) runs=\(tally.runs) unfinished=\(tally.unfinished): \(tally.summary)")
        #expect(tally.unfinished > 0, "no run missed a deadline of 1 µs with 5 ms before every label")
        #expect(tally.runs + tally.unfinished == 10)
        #expect(tally.outputs.allSatisfy { $0.count == puzzle.labelCount }, "partial outputs were counted: \(tally.summary)")
        #expect(tally.outputs.isSubset(of: puzzle.happensBefore.possibleOutputs()))
    }
}
