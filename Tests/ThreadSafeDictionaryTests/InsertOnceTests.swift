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
        let dictionary = ThreadSafeDictionary<Int, Int>()
        let tally = Locked(Tally())
        let everyRound = StartBarrier(parties: threads)
        ThreadGang.run(threads, seconds: 10, in: "value(forKey:orInsert:) from 6 threads") { _ in
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
}
