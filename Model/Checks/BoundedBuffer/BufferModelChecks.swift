#if KATA_MODEL
import KataModel

/// The systematic checks of BoundedBuffer: a producer and a consumer (or two), a few elements,
/// no timeouts (the model's time is virtual, and the exercise re-reads the real clock).
public let modelChecks: [ModelCheck] = [
    ModelCheck("hand-off through one slot", zh: "经由一个空位交接", stress: ["handoffsNeverStall", "blockedProducerResumes", "blockedConsumerResumes"]) {
        let buffer = BoundedBuffer<Int>(capacity: 1)
        let taken = Results()
        let producer = Model.spawn("producer") {
            for element in 1...2 { try? buffer.put(element) }
        }
        let consumer = Model.spawn("consumer") {
            for _ in 1...2 { if let element = try? buffer.take() { taken.values.append(element) } }
        }
        Model.join(producer, consumer)
        Model.check(
            taken.values == [1, 2],
            "the consumer took \(taken.values) from a producer that put [1, 2]",
            zh: "生产者放入 [1, 2]，消费者却取到 \(taken.values)")
    },
    ModelCheck("two producers, one consumer", zh: "两个生产者，一个消费者", stress: ["manyProducersAndConsumers", "blockedProducerResumes"]) {
        let buffer = BoundedBuffer<Int>(capacity: 1)
        let taken = Results()
        let producers = [[1, 2], [3, 4]].enumerated().map { index, elements in
            Model.spawn("producer \(index + 1)") {
                for element in elements { try? buffer.put(element) }
            }
        }
        let consumer = Model.spawn("consumer") {
            for _ in 0..<4 { if let element = try? buffer.take() { taken.values.append(element) } }
        }
        Model.join(producers + [consumer])
        let inOrder = taken.values.filter { $0 <= 2 } == [1, 2] && taken.values.filter { $0 > 2 } == [3, 4]
        Model.check(
            taken.values.count == 4 && inOrder,
            "two producers put [1, 2] and [3, 4]; the consumer took \(taken.values)",
            zh: "两个生产者分别放入 [1, 2] 和 [3, 4]；消费者取到 \(taken.values)")
    },
    ModelCheck("two consumers, close", zh: "两个消费者，然后 close", stress: ["closeWakesEveryone", "closeSemantics"]) {
        let buffer = BoundedBuffer<Int>(capacity: 1)
        let taken = Results()
        let ends = Results()
        let consumers = (1...2).map { index in
            Model.spawn("consumer \(index)") {
                do {
                    taken.values.append(try buffer.take())
                } catch {
                    ends.values.append(index)
                }
            }
        }
        let producer = Model.spawn("producer") {
            try? buffer.put(1)
            buffer.close()
        }
        Model.join(consumers + [producer])
        Model.check(
            taken.values == [1] && ends.values.count == 1,
            "after put(1) and close(), two consumers got \(taken.values) and \(ends.values.count) saw .closed (expected [1] and 1)",
            zh: "put(1) 和 close() 之后，两个消费者取到 \(taken.values)，\(ends.values.count) 个得到 .closed（应为 [1] 和 1 个）")
    },
    // Two consumers are what the classic `if` around `wait()` needs: one wakes, the other takes
    // the element first, and the first goes on to take from an empty buffer. A `signal()` shared
    // by both sides can wake the other consumer instead of the waiting producer.
    ModelCheck("two consumers, one producer", zh: "两个消费者，一个生产者", stress: ["manyProducersAndConsumers", "blockedConsumerResumes"]) {
        let buffer = BoundedBuffer<Int>(capacity: 1)
        let taken = Results()
        let consumers = (1...2).map { index in
            Model.spawn("consumer \(index)") {
                if let element = try? buffer.take() { taken.values.append(element) }
            }
        }
        let producer = Model.spawn("producer") {
            for element in 1...2 { try? buffer.put(element) }
        }
        Model.join(consumers + [producer])
        Model.check(
            taken.values.sorted() == [1, 2],
            "a producer put [1, 2] and two consumers took one element each; they got \(taken.values)",
            zh: "生产者放入 [1, 2]，两个消费者各取一个；它们取到 \(taken.values)")
    },
]

final class Results: @unchecked Sendable {
    var values: [Int] = []
}
#endif
