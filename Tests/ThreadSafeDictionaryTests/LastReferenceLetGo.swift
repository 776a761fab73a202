import Dispatch
import Foundation
import KataTestSupport
import Testing
import ThreadSafeDictionary

/// The end of a dictionary's life: one thread fills it with every kind of write (one of them
/// with a body that throws), hands it to another thread, and that thread lets go of the last
/// reference at once, while a write made with `async(flags: .barrier)` may still be queued (its
/// block then holds the dictionary for a moment, which is right). Then the dictionary and every
/// value it held must be freed: nothing but the dictionary may keep them. Runs inside the
/// memory-safety check's child process, after its threads are done: a crash here is a crash of
/// that check.
enum LastReferenceLetGo {
    /// A value whose end a weak reference can see.
    final class Watched: Sendable {}

    final class Weak: @unchecked Sendable {
        weak var object: AnyObject?
        init(_ object: AnyObject) { self.object = object }
    }

    struct Refused: Error {}

    static let place = "a dictionary of 19 values let go on another thread"
    static let subscriptKeys = 16
    static let throwingStep = "count, called after a mutate whose body threw"

    /// Records an issue and returns false when something went wrong; `progress` is moved after
    /// each step, for the child's watchdog.
    @discardableResult
    static func dictionaryAndValuesAreFreed(progress: () -> Void) -> Bool {
        let handedOver = Locked<ThreadSafeDictionary<Int, Watched>?>(nil)
        let dictionary = Locked<Weak?>(nil)
        let values = Locked<[Weak]>([])
        let step = Locked("subscript set")
        let writer = ThreadGang.spawn { fill(handingOverTo: handedOver, dictionary: dictionary, values: values, step: step) }
        guard writer.wait(timeout: .now() + Deadline.promptSeconds) == .success else {
            let stuck = step.current
            let hint = stuck == throwingStep
                ? " A body that throws must leave the dictionary as usable as before: give the lock or semaphore back with defer, so that it is given back on the throwing path too (queue.sync does that for you)."
                : ""
            Issue.record("Deadlock suspected in \(place): the thread filling it did not return within \(Int(Deadline.promptSeconds)) s; it was inside \(stuck).\(hint)")
            return false
        }
        progress()
        // The filling thread has returned: the dictionary is held by `handedOver` alone (and by
        // a queued barrier block, if a write was asynchronous).
        let letGo = ThreadGang.spawn {
            let last = handedOver.withLock { held -> ThreadSafeDictionary<Int, Watched>? in
                defer { held = nil }
                return held
            }
            withExtendedLifetime(last) {}  // the last reference ends here, on this thread
        }
        guard Deadline.wait(
            for: letGo, seconds: Deadline.promptSeconds, in: place,
            waitingFor: "the thread letting go of the last reference returning",
            hint: "Letting go of the last reference runs deinit on that thread: a deinit must not wait for anything.")
        else { return false }
        progress()
        let watched = values.current
        let freed = Deadline.happens(within: Deadline.promptSeconds) {
            dictionary.current?.object == nil && watched.allSatisfy { $0.object == nil }
        }
        progress()
        if freed { return true }
        let valuesAlive = watched.filter { $0.object != nil }.count
        if dictionary.current?.object != nil {
            Issue.record("A dictionary holding 19 values was let go by its last owner, on another thread than the one that wrote, and \(Int(Deadline.promptSeconds)) s later it had not been freed, and \(valuesAlive) of the \(watched.count) values stored in it were still alive: something still holds it. A closure kept in one of its properties that captures self (a `lazy var` or a property set in init that uses `self.storage` or `self.queue`) is a cycle that keeps the dictionary and its values forever: make it a method, or capture [weak self] in it.")
        } else {
            Issue.record("The dictionary was freed after its last owner let it go, but \(valuesAlive) of the \(watched.count) values stored in it were not, \(Int(Deadline.promptSeconds)) s later: something other than the dictionary keeps them. Keep the values in the dictionary's storage only.")
        }
        return false
    }

    /// Every write operation stores a watched value; the last write's body throws, and `count`
    /// follows it. Then the dictionary is handed over, and this thread's reference ends with
    /// the function.
    static func fill(
        handingOverTo handedOver: Locked<ThreadSafeDictionary<Int, Watched>?>,
        dictionary watched: Locked<Weak?>, values: Locked<[Weak]>, step: Locked<String>
    ) {
        func watching(_ value: Watched) -> Watched {
            values.withLock { $0.append(Weak(value)) }
            return value
        }
        let dictionary = ThreadSafeDictionary<Int, Watched>()
        watched.withLock { $0 = Weak(dictionary) }
        func doing(_ name: String) { step.withLock { $0 = name } }
        for key in 0..<subscriptKeys { dictionary[key] = watching(Watched()) }
        doing("value(forKey:orInsert:)")
        _ = dictionary.value(forKey: subscriptKeys, orInsert: { watching(Watched()) })
        doing("withValue(forKey:_:)")
        dictionary.withValue(forKey: subscriptKeys + 1) { $0 = watching(Watched()) }
        doing("mutate")
        dictionary.mutate { $0[subscriptKeys + 2] = watching(Watched()) }
        // Replaced: the value it replaces must be freed as well.
        doing("subscript set")
        dictionary[0] = watching(Watched())
        doing("a mutate whose body throws")
        _ = try? dictionary.mutate { _ in throw Refused() }
        doing(throwingStep)
        _ = dictionary.count
        // Writes just made: asynchronous barrier writes may still be queued when it is let go.
        doing("subscript set")
        for key in 1...3 { dictionary[key] = watching(Watched()) }
        handedOver.withLock { $0 = dictionary }
    }
}
