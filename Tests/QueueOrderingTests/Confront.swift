import Foundation
import KataTestSupport
import QueueOrdering
import QueueOrderingModel
import Testing

/// Confronts the learner's prediction for a puzzle with the suite's model and with real runs
/// (as many as `RunBudget` says; the model and the runners are in QueueOrderingModel).
enum Confront {
    /// The learner's prediction, if it breaks no rule; otherwise the broken rules are recorded and
    /// nil is returned at once, before anything runs.
    static func prediction(for puzzle: Puzzle, sourceLocation: SourceLocation = #_sourceLocation) -> Prediction? {
        // The learner's code runs on a thread of its own, watched with a deadline: a predict that
        // never returns (a loop over permutations that does not end) fails this check, not the run.
        let answer = Locked<Prediction?>(nil)
        let returned = DispatchSemaphore(value: 0)
        let thread = Thread {
            let prediction = predict(puzzle)
            answer.withLock { $0 = prediction }
            returned.signal()
        }
        thread.stackSize = 1 << 22
        thread.start()
        guard Deadline.wait(for: returned, seconds: Deadline.promptSeconds, in: "predict(.\(puzzle))", waitingFor: "predict returning",
                            hint: "predict should only return a set it already knows.", sourceLocation: sourceLocation),
              let prediction = answer.current
        else { return nil }
        let model = puzzle.happensBefore
        let call = "predict(.\(puzzle))"
        if prediction.outputs.isEmpty {
            Issue.record(Comment(rawValue: """
                \(call) lists no outputs, but every puzzle prints something. List every order in which this code \
                (\(puzzle.title)) can print its labels, and say whether it deadlocks:
                \(puzzle.code)
                """), sourceLocation: sourceLocation)
            return nil
        }
        var broken = false
        for output in prediction.outputs.sorted() {
            if let why = model.whyImpossible(output) {
                Issue.record(Comment(rawValue: "\(call): \(why)"), sourceLocation: sourceLocation)
                broken = true
            }
        }
        if prediction.deadlocks != model.deadlocks {
            let why = model.deadlocks
                ? "\(call) says it never deadlocks, but it does: \(model.neverPrinted.sorted { $0.key < $1.key }.first.map { "\($0.key) is never printed: \($0.value)" } ?? "")"
                : "\(call) says it deadlocks, but nothing in it waits forever: every label is printed."
            Issue.record(Comment(rawValue: why), sourceLocation: sourceLocation)
            broken = true
        }
        return broken ? nil : prediction
    }

    /// "2,000"
    static func count(_ value: Int) -> String {
        let digits = String(value)
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
            result.append(character)
        }
        return result
    }

    /// Records a miss for every output that was printed but not predicted, and for every output
    /// the model allows that was not predicted although this run did not print it.
    static func missed(
        _ puzzle: Puzzle, predicted: Set<String>, observed: Tally, of what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let call = "predict(.\(puzzle))"
        let printedButMissed = observed.counts.filter { !predicted.contains($0.key) }.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
        for (output, times) in printedButMissed {
            Issue.record(Comment(rawValue: "\(call): you missed \(output): printed in \(count(times)) of \(count(observed.runs)) \(what). \(puzzle.lesson.capitalizedFirst)"),
                         sourceLocation: sourceLocation)
        }
        let possibleButMissed = puzzle.happensBefore.possibleOutputs().subtracting(predicted).subtracting(observed.outputs).sorted()
        for output in possibleButMissed {
            Issue.record(Comment(rawValue: "\(call): you missed \(output): these \(count(observed.runs)) \(what) did not print it, but no rule forbids it, so another run can. \(puzzle.lesson.capitalizedFirst)"),
                         sourceLocation: sourceLocation)
        }
    }

    /// A puzzle that does not deadlock: the prediction, then `RunBudget.runs` runs with jitter.
    /// The verdict comes from the model; the runs are evidence for the messages. A run that has not
    /// printed every label after `PuzzleRuns.runSeconds` is left out of that evidence: the model
    /// says the puzzle cannot deadlock, and the learner's code takes no part in it, so only a
    /// machine too loaded to schedule its threads keeps it waiting (seen once in a full grade of
    /// every suite at once on 2 cores), which says nothing about the prediction.
    static func inProcess(_ puzzle: Puzzle, sourceLocation: SourceLocation = #_sourceLocation) async {
        guard let prediction = prediction(for: puzzle, sourceLocation: sourceLocation) else { return }
        let tally = await PuzzleRuns.tallyOnThread(puzzle, runs: RunBudget.runs, seconds: RunBudget.runSeconds)
        missed(puzzle, predicted: prediction.outputs, observed: tally, of: "runs", sourceLocation: sourceLocation)
    }

    /// The puzzle libdispatch stops: the prediction, then `RunBudget.stoppedChildren` children. A child
    /// stopped before the caller's part returned printed only the beginning of an output: that
    /// beginning must begin one of the predicted outputs.
    static func stopped(_ puzzle: Puzzle, sourceLocation: SourceLocation = #_sourceLocation) async {
        guard let prediction = prediction(for: puzzle, sourceLocation: sourceLocation) else { return }
        guard let stops = await Isolated.stops(of: puzzle, children: RunBudget.stoppedChildren, seconds: RunBudget.runSeconds) else { return }
        var complete = Tally()
        for stop in stops where stop.isComplete(of: puzzle) { complete.add(stop.output) }
        var cut = Tally()
        for stop in stops where !stop.isComplete(of: puzzle) { cut.add(stop.output) }
        missed(puzzle, predicted: prediction.outputs, observed: complete, of: "child processes that printed a whole output before the stop", sourceLocation: sourceLocation)
        for (beginning, times) in cut.counts.sorted(by: { $0.key < $1.key })
        where !prediction.outputs.contains(where: { $0.hasPrefix(beginning) }) {
            Issue.record(Comment(rawValue: "predict(.\(puzzle)): no predicted output begins with \(beginning), yet \(count(times)) of \(count(stops.count)) child processes printed \(beginning) before libdispatch stopped them. \(puzzle.lesson.capitalizedFirst)"),
                         sourceLocation: sourceLocation)
        }
    }

    /// The puzzle that hangs: the prediction, then `RunBudget.hangingRuns` runs in one child.
    static func hanging(_ puzzle: Puzzle, sourceLocation: SourceLocation = #_sourceLocation) async {
        guard let prediction = prediction(for: puzzle, sourceLocation: sourceLocation) else { return }
        guard let tally = await Isolated.hangingRuns(of: puzzle) else { return }
        missed(puzzle, predicted: prediction.outputs, observed: tally, of: "runs (in a child process, each left hanging)", sourceLocation: sourceLocation)
    }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
