import Testing
import ThreadSafeDictionary

/// Plain dictionary behaviour on one thread: the foundation the concurrent checks build on.
@Suite("ThreadSafeDictionary on one thread", .exitIsAFailure)
struct SingleThreadTests {
    @Test("Subscript, removeValue, count and isEmpty behave like a Dictionary")
    func basicsOnOneThread() {
        let dictionary = ThreadSafeDictionary(["a": 1, "b": 2])
        #expect(dictionary["a"] == 1, "init(_:) should start with the given elements: keep them in private storage.")
        #expect(dictionary.count == 2, "count should be 2 after init([\"a\": 1, \"b\": 2]).")
        #expect(!dictionary.isEmpty, "isEmpty should be false when there are entries.")

        dictionary["c"] = 3
        let readBack = dictionary["c"]
        #expect(readBack == 3, "A value assigned through the subscript should be read back: right after dictionary[\"c\"] = 3, a read on the same thread got \(String(describing: readBack)). Store newValue in the setter, and keep every write ordered before the reads that follow it: an async write on a concurrent queue without .barrier is not ordered before a later read, which may run first.")
        dictionary["a"] = nil
        let removed = dictionary["a"]
        #expect(removed == nil, "Assigning nil through the subscript should remove the key: right after dictionary[\"a\"] = nil, a read on the same thread got \(String(describing: removed)). An async write on a concurrent queue without .barrier is not ordered before a later read.")
        #expect(dictionary.removeValue(forKey: "b") == 2, "removeValue(forKey:) should return the value the key had.")
        #expect(dictionary.removeValue(forKey: "b") == nil, "removeValue(forKey:) of an absent key should return nil.")
        #expect(dictionary.count == 1, "Only \"c\" should be left after removing \"a\" and \"b\".")
        dictionary["c"] = nil
        #expect(dictionary.isEmpty, "isEmpty should be true once every key is removed.")
    }

    @Test("snapshot, withValue, value(forKey:orInsert:), mutate and read see and keep the entries")
    func closuresOnOneThread() {
        let dictionary = ThreadSafeDictionary(["x": 10])
        #expect(dictionary.snapshot() == ["x": 10], "snapshot() should return a copy of every entry.")

        let old = dictionary.withValue(forKey: "x") { value -> Int? in
            defer { value = (value ?? 0) + 5 }
            return value
        }
        #expect(old == 10, "withValue should hand its body the stored value (10).")
        #expect(dictionary["x"] == 15, "withValue should store what its body leaves in the value (15).")
        dictionary.withValue(forKey: "x") { $0 = nil }
        #expect(dictionary["x"] == nil, "Setting the value to nil inside withValue should remove the key.")

        var makes = 0
        let first = dictionary.value(forKey: "y", orInsert: { makes += 1; return 7 })
        let second = dictionary.value(forKey: "y", orInsert: { makes += 1; return 8 })
        #expect(first == 7 && second == 7, "value(forKey:orInsert:) should insert make() once, then return the stored value.")
        #expect(makes == 1, "make should run only when the key is absent; it ran \(makes) times.")
        #expect(dictionary["y"] == 7, "value(forKey:orInsert:) should store what make() returned.")

        let countInside = dictionary.mutate { entries -> Int in
            entries["p"] = 1
            entries["q"] = 2
            return entries.count
        }
        #expect(countInside == 3, "mutate should hand its body the stored entries (\"y\"), not an empty copy.")
        #expect(dictionary.snapshot() == ["y": 7, "p": 1, "q": 2], "mutate should keep the changes its body made.")
        #expect(dictionary.read { $0.count } == 3, "read should hand its body the stored entries.")
    }
}
