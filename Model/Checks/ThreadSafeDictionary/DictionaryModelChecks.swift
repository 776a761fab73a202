#if KATA_MODEL
import KataModel

/// The systematic checks of ThreadSafeDictionary: two or three threads, a few calls each, and the
/// exercise's own properties, stated after every thread has finished.
public let modelChecks: [ModelCheck] = [
    ModelCheck("insert once", zh: "同一个键只插入一次", stress: ["makeRunsOncePerKey"]) {
        let dictionary = ThreadSafeDictionary<Int, Int>()
        let makes = Counter()
        let results = Results()
        let callers = (1...2).map { caller in
            Model.spawn("caller \(caller)") {
                let value = dictionary.value(forKey: 7, orInsert: {
                    Model.note("make() runs")
                    makes.value += 1
                    return caller
                })
                results.values.append(value)
            }
        }
        Model.join(callers)
        Model.check(
            makes.value == 1,
            "value(forKey:orInsert:) ran make \(makes.value) times for one key (it must run once); the callers got \(results.values)",
            zh: "value(forKey:orInsert:) 对同一个键调用了 \(makes.value) 次 make（只能调用一次）；调用方得到 \(results.values)")
        Model.check(
            Set(results.values).count == 1,
            "two callers of value(forKey:orInsert:) for one key got different values: \(results.values)",
            zh: "同一个键的两个 value(forKey:orInsert:) 调用方得到了不同的值：\(results.values)")
    },
    ModelCheck("no lost update", zh: "更新不会丢失", stress: ["incrementsAreNeverLost", "mixedOperationsAreMemorySafe"]) {
        let dictionary = ThreadSafeDictionary<Int, Int>()
        let writers = (1...2).map { writer in
            Model.spawn("writer \(writer)") {
                for _ in 0..<2 {
                    dictionary.withValue(forKey: 1) { value in
                        let seen = value ?? 0
                        // A switch point inside the write: another writer that is let in now
                        // (a barrier that does not exclude) reads the same old value.
                        Model.point("inside withValue")
                        value = seen + 1
                    }
                }
            }
        }
        Model.join(writers)
        let total = dictionary[1] ?? 0
        Model.check(
            total == 4,
            "2 writers × 2 increments with withValue(forKey:) left \(total), not 4: an update was lost",
            zh: "2 个写线程各用 withValue(forKey:) 加 1 两次，结果是 \(total) 而不是 4：有更新丢失")
    },
    ModelCheck("snapshot sees whole moves", zh: "快照只看到完整的移动", stress: ["snapshotsAreConsistent", "writersAreExclusive"]) {
        let dictionary = ThreadSafeDictionary<Int, Int>([0: 10, 1: 0])
        let seen = Results()
        let mover = Model.spawn("writer") {
            for _ in 0..<2 {
                dictionary.mutate { storage in
                    storage[0, default: 0] -= 1
                    Model.point("half way through mutate")
                    storage[1, default: 0] += 1
                }
            }
        }
        let reader = Model.spawn("reader") {
            for _ in 0..<2 { seen.values.append(dictionary.snapshot().values.reduce(0, +)) }
        }
        Model.join(mover, reader)
        Model.check(
            seen.values.allSatisfy { $0 == 10 },
            "a reader's snapshot summed to \(seen.values) while a writer moved 1 between two keys inside mutate: it saw a move half done",
            zh: "写线程在 mutate 中把 1 从一个键移到另一个键时，读线程的快照之和是 \(seen.values)：它看到了只做了一半的修改")
    },
]

/// Plain storage that the model's threads share: one runs at a time, so it needs no lock.
final class Counter: @unchecked Sendable {
    var value = 0
}

final class Results: @unchecked Sendable {
    var values: [Int] = []
}
#endif
