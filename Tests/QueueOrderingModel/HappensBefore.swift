/// The suite's own answer to every puzzle: its happens-before order, from which the possible
/// outputs are derived (every order of the labels consistent with it) and with which an
/// impossible prediction is explained by the rule it breaks.
///
/// Only the direct orders are listed, each with the rule that makes it; the derivation takes care
/// of the rest (an output that breaks a derived order breaks a direct one too).
public struct HappensBefore: Sendable {
    /// "`before` is printed before `after`", because of `rule` (a sentence a learner reads).
    public struct Order: Sendable {
        /// The label printed first.
        public let before: Int
        /// The label printed after it.
        public let after: Int
        /// Why: a sentence that completes "`after` cannot come before `before`, …", starting with "because".
        public let rule: String

        /// "`before` is printed before `after`", because of `rule`.
        public init(before: Int, after: Int, rule: String) {
            self.before = before
            self.after = after
            self.rule = rule
        }
    }

    /// Every label the code contains.
    public let labels: [Int]
    /// The direct orders, each with its rule.
    public let orders: [Order]
    /// Labels that are never printed, with the reason (the deadlock that blocks them).
    public let neverPrinted: [Int: String]

    /// A model with these labels, direct orders and labels that are never printed (none: no deadlock).
    public init(labels: [Int], orders: [Order], neverPrinted: [Int: String] = [:]) {
        self.labels = labels
        self.orders = orders
        self.neverPrinted = neverPrinted
    }

    /// Whether the puzzle deadlocks (some label is never printed).
    public var deadlocks: Bool { !neverPrinted.isEmpty }

    /// The labels a run prints before it stops.
    public var printed: [Int] { labels.filter { neverPrinted[$0] == nil } }

    /// Every output consistent with the orders: each printed label once, each order respected.
    public func possibleOutputs() -> Set<String> {
        let printed = printed
        var results = Set<String>()
        var sequence: [Int] = []
        var placed = Set<Int>()
        func extend() {
            if sequence.count == printed.count {
                results.insert(sequence.map(String.init).joined())
                return
            }
            for label in printed where !placed.contains(label) {
                let ready = orders.allSatisfy { $0.after != label || placed.contains($0.before) || neverPrinted[$0.before] != nil }
                guard ready else { continue }
                sequence.append(label)
                placed.insert(label)
                extend()
                placed.remove(label)
                sequence.removeLast()
            }
        }
        extend()
        return results
    }

    /// Why `output` cannot be printed by this puzzle; nil if it can.
    public func whyImpossible(_ output: String) -> String? {
        let all = labels.map(String.init).joined(separator: ", ")
        var seen = Set<Int>()
        var sequence: [Int] = []
        for character in output {
            guard let digit = character.wholeNumberValue, character.isASCII, labels.contains(digit) else {
                return "\"\(output)\" is not an output of this puzzle: its labels are \(all), written as digits (\"\(printed.map(String.init).joined())\")."
            }
            guard seen.insert(digit).inserted else {
                return "\"\(output)\" prints \(digit) twice: every print in this puzzle runs at most once."
            }
            sequence.append(digit)
        }
        for label in sequence {
            if let reason = neverPrinted[label] {
                return "\"\(output)\" contains \(label), which is never printed: \(reason)"
            }
        }
        if let missing = printed.first(where: { !seen.contains($0) }) {
            return deadlocks
                ? "\"\(output)\" is not where this puzzle stops: \(missing) is printed too, since nothing blocks it (list what is printed once everything that can still run has run)."
                : "\"\(output)\" leaves out \(missing): nothing in this puzzle blocks forever, so every label is printed."
        }
        let position = Dictionary(uniqueKeysWithValues: sequence.enumerated().map { ($1, $0) })
        for order in orders {
            if let before = position[order.before], let after = position[order.after], after < before {
                return "\"\(output)\" is impossible: \(order.after) cannot come before \(order.before), \(order.rule)"
            }
        }
        return nil
    }
}
