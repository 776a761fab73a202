import Foundation
import KataTestSupport
import Testing
import ThreadSafeDictionary

/// "Look up, and insert if absent" done as two steps lets two threads both see the key missing
/// and both call `make`: a cache that builds an expensive value twice, or hands out two
/// different values for one key.
@Suite("Insert once", .exitIsAFailure)
struct InsertOnceTests {
    static let threads = 6
    static let rounds = 150

    static func linger(until condition: () -> Bool) {
        let end = DispatchTime.now().uptimeNanoseconds + 1_000_000
        while !condition() && DispatchTime.now().uptimeNanoseconds < end { usleep(100) }
    }

    @Test("Racing value(forKey:orInsert:) on a fresh key runs make once and gives everyone its value")
    func makeRunsOncePerKey() async {
        guard EntriesKept.orRecord(checking: "value(forKey:orInsert:) from 6 threads") else { return }
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "value(forKey:orInsert:) from 6 threads")
            InsertOnceTests.raceOnFreshKeys()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "value(forKey:orInsert:) from 6 threads",
            crashHint: "A crash here usually means two threads inserted into the storage at once.")
    }

    struct Tally {
        var makes: [Int: Int] = [:]
        var answers: [Int: Set<Int>] = [:]
        var nextToken = 0
    }

    static func raceOnFreshKeys() {
        guard lookupsMeet() else { return }
        let dictionary = ThreadSafeDictionary<Int, Int>()
        let tally = Locked(Tally())
        let everyRound = StartBarrier(parties: threads)
        ThreadGang.run(threads, seconds: 10, in: "value(forKey:orInsert:) from 6 threads", progress: { everyRound.rounds }) { _ in
            for round in 0..<rounds {
                guard everyRound.arrive() else { return }
                let value = dictionary.value(forKey: round) {
                    let token = tally.withLock { tally -> Int in
                        tally.makes[round, default: 0] += 1
                        tally.nextToken += 1
                        return tally.nextToken
                    }
                    // An expensive make: it lingers until a second make for the same key starts
                    // (which only a broken implementation allows), for at most 1 ms.
                    InsertOnceTests.linger { tally.current.makes[round, default: 0] > 1 }
                    return token
                }
                tally.withLock { $0.answers[round, default: []].insert(value) }
            }
        }
        let seen = tally.current
        let repeated = seen.makes.filter { $0.value > 1 }.count
        let split = seen.answers.filter { $0.value.count > 1 }.count
        #expect(
            repeated == 0,
            "make ran more than once for \(repeated) of \(rounds) keys. Looking the key up and inserting it must happen in one exclusive access (look again inside the barrier), or two threads both find it missing.")
        #expect(split == 0, "For \(split) of \(rounds) keys, racing callers got different values: every caller must get the one value that was stored.")
        #expect(dictionary.count == rounds, "value(forKey:orInsert:) should store what make returned: \(rounds) keys expected, \(dictionary.count) stored.")
    }

    static let meetingRounds = 5

    /// The forced schedule: two threads look for a fresh key, and their lookups meet inside the
    /// key's `hash(into:)` (the key is the check's own type), so both have looked, and found
    /// nothing, before either can insert. Then an insert that does not look again inside its
    /// exclusive part runs `make` twice, in every round; one that looks again finds the other's
    /// value. Without the meeting, the two looks must fall within microseconds of each other,
    /// which on two cores happened in about one run of ten.
    /// A lookup that holds an exclusive lock while it hashes keeps the other thread out: the
    /// first waits at most `HashGate.patience`, then goes on alone, and the round proves nothing
    /// but fails nothing.
    static func lookupsMeet() -> Bool {
        let gate = HashGate()
        // Not empty, so that a lookup hashes its key (an empty Dictionary answers without hashing).
        let dictionary = ThreadSafeDictionary<GatedKey, Int>([GatedKey(id: -1, gate: gate): 0])
        for round in 0..<meetingRounds {
            let key = GatedKey(id: round, gate: gate)
            gate.arm(round)
            let tally = Locked(Tally())
            guard ThreadGang.run(2, seconds: 5, in: "value(forKey:orInsert:) from 2 threads whose lookups meet", { _ in
                let value = dictionary.value(forKey: key) {
                    tally.withLock { tally -> Int in
                        tally.makes[round, default: 0] += 1
                        tally.nextToken += 1
                        return tally.nextToken
                    }
                }
                tally.withLock { $0.answers[round, default: []].insert(value) }
            }) else { return false }
            let seen = tally.current
            let makes = seen.makes[round, default: 0]
            let answers = seen.answers[round, default: []]
            guard makes <= 1 && answers.count <= 1 else {
                Issue.record("Two threads called value(forKey:orInsert:) with a fresh key, and both looked it up before either inserted it (the check made their lookups meet). make ran \(makes) times, and they got \(answers.count) different values. Finding the key missing is only a hint: look again inside the exclusive part (the barrier block or the write lock), where no one else can insert it meanwhile.")
                return false
            }
        }
        return true
    }
}

/// A key whose hashing, for the key armed in its gate, waits until a second lookup of the same
/// key is hashing it too: two lookups that may run together (shared reads) meet there.
struct GatedKey: Hashable, Sendable {
    let id: Int
    let gate: HashGate

    static func == (lhs: GatedKey, rhs: GatedKey) -> Bool { lhs.id == rhs.id }

    func hash(into hasher: inout Hasher) {
        gate.hashing(id)
        hasher.combine(id)
    }
}

/// Where the first hash of the armed key waits for the second, at most `patience` seconds.
/// Later hashes of it (the look inside the exclusive part, the insert, a resize) pass at once.
final class HashGate: @unchecked Sendable {
    static let patience = 0.25
    private let condition = NSCondition()
    private var armed: Int?
    private var waiting = false

    func arm(_ id: Int) {
        condition.lock()
        armed = id
        waiting = false
        condition.unlock()
    }

    func hashing(_ id: Int) {
        condition.lock()
        defer { condition.unlock() }
        guard armed == id else { return }
        guard !waiting else {
            // The second: both have now looked; let the first go, and disarm.
            armed = nil
            condition.broadcast()
            return
        }
        waiting = true
        let deadline = Date(timeIntervalSinceNow: Self.patience)
        while armed == id {
            if !condition.wait(until: deadline) { break }
        }
        if armed == id { armed = nil }
    }
}
