import Foundation

/// Where the model (`Model/`) applies: the exercises it has checks for, the files of
/// each that its build leaves out, and the learner's uses of synchronization it has no twin of.
///
/// The model interleaves threads only at the operations of its twins (`Model/Twins/`):
/// `DispatchQueue` (serial, concurrent, `global()`, barriers, `async`/`sync`/`asyncAfter`,
/// `suspend`/`resume`, `setSpecific`/`getSpecific`, `concurrentPerform`), `DispatchGroup`,
/// `DispatchSemaphore`, `DispatchWorkItem`, `DispatchTime`, a `DispatchSource` timer, `NSLock`, `NSRecursiveLock`,
/// `NSCondition` and `Mutex`. Code that synchronizes with anything else would run outside the
/// schedule (a real thread, a real lock the scheduler cannot see), so a verdict would mean
/// nothing: such code gets "not applicable: uses X" instead. Two detectors, each for what it sees:
/// - this scan, for the types that compile against the twins but escape them (a real
///   `OperationQueue`, `os_unfair_lock`, an actor): identifiers in the code, comments and string
///   literals blanked;
/// - the compiler, for members the twins lack (`DispatchQueue.main`, `DispatchQueue.label`): the
///   modeled build fails with "has no member" on a twin (`ModelBuildErrors`).
enum ModelApplicability {
    /// The exercises with systematic checks, in course order.
    static let exercises = [
        "ThreadSafeDictionary", "CancellableWork",
        "ThrottledDownloader",
        "StallMonitor",
        "Deadlocks", "BoundedBuffer", "GatesAndOnce",
    ]

    /// Files the modeled build leaves out and the checks never run (Package.swift,
    /// `unmodeledFiles`): GatesAndOnce's `OperationGate` is built on `OperationQueue`.
    static let unmodeledFiles: [String: Set<String>] = ["GatesAndOnce": ["OperationGate.swift"]]

    /// The types the twins stand in for (said in the "not applicable" message).
    static let twinned = "DispatchQueue, DispatchGroup, DispatchSemaphore, DispatchWorkItem, DispatchTime, DispatchSourceTimer, NSLock, NSRecursiveLock, NSCondition, Mutex"

    /// A use of synchronization the model has no twin of.
    struct Use: Equatable, Sendable {
        var what: String
        var file: String
        var line: Int
    }

    /// Identifiers (whole words) that name synchronization without a twin.
    static let untwinnedNames: [String: String] = [
        "OperationQueue": "OperationQueue", "BlockOperation": "BlockOperation", "Operation": "Operation",
        "NSConditionLock": "NSConditionLock", "NSDistributedLock": "NSDistributedLock", "NSLocking": "NSLocking",
        "OSAllocatedUnfairLock": "OSAllocatedUnfairLock",
        "DispatchWorkloop": "DispatchWorkloop", "DispatchIO": "DispatchIO", "DispatchWallTime": "DispatchWallTime",
        "RunLoop": "RunLoop", "Timer": "Timer",
        "Atomic": "Atomic", "ManagedAtomic": "ManagedAtomic", "UnsafeAtomic": "UnsafeAtomic",
        "AtomicLazyReference": "AtomicLazyReference",
        "Task": "Task (Swift concurrency)", "TaskGroup": "TaskGroup (Swift concurrency)", "await": "await (Swift concurrency)",
        "AsyncStream": "AsyncStream (Swift concurrency)", "objc_sync_enter": "objc_sync_enter",
        "sem_wait": "sem_wait", "sem_post": "sem_post",
    ]
    /// Identifier prefixes: families of C functions and types.
    static let untwinnedPrefixes: [(prefix: String, what: String)] = [
        ("os_unfair_lock", "os_unfair_lock"), ("pthread_", "pthread"), ("DispatchSource", "DispatchSource"),
        ("atomic_", "C atomics"), ("OSAtomic", "OSAtomic"),
    ]

    /// The uses in the Swift files of `folder` (those the modeled build compiles), first one per
    /// kind, in file and line order.
    static func uses(in folder: URL, exercise: String) -> [Use] {
        let skipped = unmodeledFiles[exercise] ?? []
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".swift") && !skipped.contains($0) }.sorted()
        var found: [Use] = []
        for name in names {
            guard let text = try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8) else { continue }
            for use in uses(inSource: text, file: name) where !found.contains(where: { $0.what == use.what }) {
                found.append(use)
            }
        }
        return found
    }

    /// The uses in one file's text.
    static func uses(inSource text: String, file: String) -> [Use] {
        let code = SwiftSourceText(text).code
        var found: [Use] = []
        for (offset, line) in code.enumerated() {
            let words = identifiers(in: line)
            for word in words {
                var what = untwinnedNames[word.text] ?? untwinnedPrefixes.first { word.text.hasPrefix($0.prefix) }?.what
                if word.text == "actor", declaresName(line, after: word.end) { what = "actor (Swift concurrency)" }
                if word.text == "Thread", startsThread(line, after: word.end) { what = "Thread (a thread of its own)" }
                if isTwinnedTimer(word, in: line) { what = nil }
                if let what, !found.contains(where: { $0.what == what }) {
                    found.append(Use(what: what, file: file, line: offset + 1))
                }
            }
        }
        return found
    }

    /// `Thread` is fine as an identity (`Thread.current`, `Thread.isMainThread`); a thread the
    /// code starts itself (`Thread {`, `Thread(`, `Thread.detachNewThread`, a subclass) is not.
    private static func startsThread(_ line: String, after end: String.Index) -> Bool {
        let rest = line[end...].drop { $0 == " " }
        if rest.hasPrefix("(") || rest.hasPrefix("{") || rest.hasPrefix(".detachNewThread") { return true }
        let before = String(line[..<end].dropLast("Thread".count))
        let mark = before.reversed().first { $0 != " " }
        return before.contains("class ") && (mark == ":" || mark == ",")
    }

    /// A timer source has a twin (`DispatchSource.makeTimerSource`, the type `DispatchSourceTimer`);
    /// the other kinds of `DispatchSource` do not.
    private static func isTwinnedTimer(_ word: Word, in line: String) -> Bool {
        if word.text == "DispatchSourceTimer" { return true }
        guard word.text == "DispatchSource" else { return false }
        let rest = line[word.end...]
        return rest.hasPrefix(".makeTimerSource") || rest.hasPrefix(".TimerFlags")
    }

    /// `actor Name`: the keyword, a space, a name (not `let actor = …`).
    private static func declaresName(_ line: String, after end: String.Index) -> Bool {
        guard end < line.endIndex, line[end] == " " else { return false }
        let next = line[end...].drop { $0 == " " }.first
        return next.map { $0.isLetter || $0 == "_" } ?? false
    }

    private struct Word {
        var text: String
        var start: String.Index
        var end: String.Index
    }

    private static func identifiers(in line: String) -> [Word] {
        var words: [Word] = []
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            if character.isLetter || character == "_" {
                // A member after a dot (`queue.await`) is not a use of the type of that name.
                let afterDot = index > line.startIndex && line[line.index(before: index)] == "."
                var end = index
                while end < line.endIndex, line[end].isLetter || line[end].isNumber || line[end] == "_" { end = line.index(after: end) }
                if !afterDot { words.append(Word(text: String(line[index..<end]), start: index, end: end)) }
                index = end
            } else if character.isNumber {
                while index < line.endIndex, line[index].isLetter || line[index].isNumber { index = line.index(after: index) }
            } else {
                index = line.index(after: index)
            }
        }
        return words
    }
}
