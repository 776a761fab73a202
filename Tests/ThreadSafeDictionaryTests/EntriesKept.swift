import KataTestSupport
import Testing
import ThreadSafeDictionary

/// The first question of every concurrent check: is there anything to protect yet?
///
/// An untouched stub keeps no entries. A concurrent check would only fail on it later, in a child
/// process, with a message about threads; this says at once what to do first. It calls the same
/// three operations the single-thread checks call, on the test's own thread.
enum EntriesKept {
    /// Whether the dictionary keeps what it is given (init, subscript get, read).
    static var yes: Bool {
        let dictionary = ThreadSafeDictionary(["k": 1])
        return dictionary["k"] == 1 && dictionary.read({ $0["k"] }) == 1
    }

    /// Returns true when the dictionary keeps its entries; otherwise records why `what` cannot be
    /// checked yet, and returns false.
    static func orRecord(checking what: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        if yes { return true }
        Issue.record(
            Comment(rawValue: "The dictionary does not keep its entries yet, so \(what) cannot be checked: make the single-thread checks pass first (keep the entries in private storage)."),
            sourceLocation: sourceLocation)
        return false
    }
}
