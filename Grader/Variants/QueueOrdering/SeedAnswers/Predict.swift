/// A wrong implementation for `grader verify`: seed 000's own answers to its eight puzzles, and
/// the "obvious" reading order for the others. The seed is right on six of its eight puzzles; it
/// lists an impossible 12345 for "serial, async inside sync" and leaves out 1234 and 1243 for
/// "concurrent, async". It must earn no more than the puzzles it gets right.
public func predict(_ puzzle: Puzzle) -> Prediction {
    switch puzzle {
    case .serialSync, .concurrentSync:
        return Prediction(outputs: ["1234"], deadlocks: false)
    case .serialAsync:
        return Prediction(outputs: ["1234", "2134", "1243", "2413", "2143"], deadlocks: false)
    case .serialSyncInsideAsync:
        return Prediction(outputs: ["125", "152"], deadlocks: true)
    case .serialAsyncInsideSync:
        return Prediction(outputs: ["12345", "12435", "12453"], deadlocks: false)
    case .concurrentAsync:
        return Prediction(outputs: ["2413", "2431", "2143", "2341", "2134", "2314"], deadlocks: false)
    case .concurrentSyncInsideAsync:
        return Prediction(outputs: ["12345", "12534", "12354", "15234"], deadlocks: false)
    case .concurrentAsyncInsideSync:
        return Prediction(outputs: ["12345", "12435", "12453"], deadlocks: false)
    default:
        let labels = (1...puzzle.labelCount).map(String.init).joined()
        return Prediction(outputs: [labels], deadlocks: false)
    }
}
