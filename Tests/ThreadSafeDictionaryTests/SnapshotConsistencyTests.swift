import Foundation
import KataTestSupport
import Testing
import ThreadSafeDictionary

/// Writers move units from one key to another inside `mutate`, so the sum of all values never
/// changes. A reader that sees another sum saw a write half done, or copied some keys before a
/// write and others after it.
@Suite("Consistent snapshots", .exitIsAFailure)
struct SnapshotConsistencyTests {
    static let keys = 16
    static let unitsPerKey = 100
    static var total: Int { keys * unitsPerKey }
    /// Writers keep moving units until both observers are done, so every observation overlaps
    /// writes; the cap only bounds a run in which observers are stuck.
    static let maxMoves = 200_000
    static let observations = 400
    static let minimumMovesObserved = 200
    static let lingeringMoves = 6
    static let lingerNanoseconds: UInt64 = 5_000_000
    static let maxObservations = 100_000

    @Test("snapshot() and read never see a half-done mutate")
    func snapshotsAreConsistent() async {
        guard EntriesKept.orRecord(checking: "snapshot and read during mutate") else { return }
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "snapshot and read during mutate")
            SnapshotConsistencyTests.observeWhileMoving()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "snapshot and read during mutate",
            crashHint: "A crash here usually means snapshot or read copied the storage while mutate was changing it.")
    }

    struct Observed {
        var snapshotSums: [Int] = []
        var readSums: [Int] = []
        var counts: (snapshots: Int, reads: Int) { (snapshotSums.count, readSums.count) }
    }

    static func observeWhileMoving() {
        var initial: [Int: Int] = [:]
        for key in 0..<keys { initial[key] = unitsPerKey }
        let dictionary = ThreadSafeDictionary(initial)
        let observed = Locked(Observed())
        let observersDone = Locked(0)
        let moves = Locked(0)
        let lingered = Locked(0)  // lingering moves done
        ThreadGang.run(4, in: "snapshot and read during mutate", progress: { moves.current + lingered.current }) { index in
            var random = SystemRandomNumberGenerator()
            defer { if index >= 2 { observersDone.withLock { $0 += 1 } } }
            switch index {
            case 0, 1:  // writers: move one unit at a time between random keys
                for move in 0..<maxMoves {
                    if observersDone.current == 2 { break }
                    let from = Int.random(in: 0..<keys, using: &random)
                    let to = (from + Int.random(in: 1..<keys, using: &random)) % keys
                    let lingers = index == 0 && move < lingeringMoves
                    dictionary.mutate { entries in
                        entries[from, default: 0] -= 1
                        // Half done: an observer that gets in now sees one unit missing. The first
                        // moves of one writer linger here until both observers have finished an
                        // observation (which only a broken implementation allows) or 5 ms pass.
                        if lingers {
                            let before = observed.current.counts
                            let end = DispatchTime.now().uptimeNanoseconds + lingerNanoseconds
                            while DispatchTime.now().uptimeNanoseconds < end {
                                let now = observed.current.counts
                                if now.snapshots > before.snapshots && now.reads > before.reads { break }
                                usleep(50)
                            }
                        } else {
                            usleep(20)
                        }
                        entries[to, default: 0] += 1
                    }
                    moves.withLock { $0 += 1 }
                    if lingers { lingered.withLock { $0 += 1 } }
                }
            case 2:
                // Keep observing until the writers have moved for a while: unprotected, a burst
                // of observations can end before a writer ever gets a core.
                var done = 0
                while done < observations || ((moves.current < minimumMovesObserved || lingered.current < lingeringMoves) && done < maxObservations) {
                    let sum = dictionary.snapshot().values.reduce(0, +)
                    observed.withLock { $0.snapshotSums.append(sum) }
                    done += 1
                    if sum != total { break }  // one torn view decides the check
                }
            default:
                // Keep observing until the writers have moved for a while: unprotected, a burst
                // of observations can end before a writer ever gets a core.
                var done = 0
                while done < observations || ((moves.current < minimumMovesObserved || lingered.current < lingeringMoves) && done < maxObservations) {
                    let sum = dictionary.read { $0.values.reduce(0, +) }
                    observed.withLock { $0.readSums.append(sum) }
                    done += 1
                    if sum != total { break }  // one torn view decides the check
                }
            }
        }
        let seen = observed.current
        let badSnapshots = seen.snapshotSums.filter { $0 != total }
        let badReads = seen.readSums.filter { $0 != total }
        #expect(
            badSnapshots.isEmpty,
            "\(badSnapshots.count) of \(seen.snapshotSums.count) snapshots had a total other than \(total) (first: \(badSnapshots.first ?? 0)). \(badSnapshots.first == 0 ? "snapshot() should copy the stored entries." : "snapshot() must copy the whole dictionary in one protected access, not key by key.")")
        #expect(
            badReads.isEmpty,
            "\(badReads.count) of \(seen.readSums.count) read calls saw a total other than \(total) (first: \(badReads.first ?? 0)). \(badReads.first == 0 ? "read should hand its body the stored entries." : "read must not run while mutate is changing the entries.")")
        let finalSum = dictionary.snapshot().values.reduce(0, +)
        #expect(finalSum == total && dictionary.count == keys, "After all moves the dictionary should still hold \(keys) keys totalling \(total); it holds \(dictionary.count) keys totalling \(finalSum).")
    }
}
