/// A wrong implementation for `grader verify`: predicts only the "obvious" output of every
/// puzzle, the labels in the order they are written, and never a deadlock. It is right only where
/// one output is possible (`sync` twice), and must earn no more than that.
public func predict(_ puzzle: Puzzle) -> Prediction {
    let labels = (1...puzzle.labelCount).map(String.init).joined()
    return Prediction(outputs: [labels], deadlocks: false)
}
