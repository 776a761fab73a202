/// The reference predictions. Each answer is derived from the happens-before rules, written as
/// "a < b" (a is printed before b) next to the rule that makes it:
///
/// - program order: statements on one thread run in the order they are written;
/// - submission: a block cannot start before the statement that submits it;
/// - `sync` returns only after its block has run;
/// - a serial queue runs one block at a time, in submission order;
/// - a barrier on a private concurrent queue starts after every earlier block has finished
///   (on a global queue, it is ignored);
/// - `notify` runs after every block of its group; `wait()` returns after a `signal()`.
///
/// Every order of the labels that keeps all those "<" is possible; no other is.
public func predict(_ puzzle: Puzzle) -> Prediction {
    switch puzzle {
    case .serialSync, .concurrentSync:
        // 1 < 2 (sync returns after its block), 2 < 3 (program order, then submission),
        // 3 < 4 (sync again): one chain, one output, whatever the kind of queue.
        return Prediction(outputs: ["1234"], deadlocks: false)

    case .serialAsync:
        // 1 < 3 (serial queue, 1 submitted first), 2 < 3 (3 is submitted after 2 is printed),
        // 2 < 4 (program order). 1 is free against 2 and 4; 4 is free against 1 and 3.
        return Prediction(outputs: ["1234", "1243", "2134", "2143", "2413"], deadlocks: false)

    case .serialSyncInsideAsync:
        // The block prints 2, then calls sync onto the queue that is running it: the inner block
        // waits for the outer one to end, which waits for the inner one. 3 and 4 never print.
        // 1 < 2 (submission), 1 < 5 (program order); 2 and 5 race.
        // (libdispatch detects this deadlock and stops the process, sometimes before the caller
        // has printed 5: what a run shows is then only the beginning, "12".)
        return Prediction(outputs: ["125", "152"], deadlocks: true)

    case .serialAsyncInsideSync:
        // 1 < 2 < 4 (program order through the sync block), 4 < 3 (the async block cannot start
        // while the sync block still occupies the serial queue), 4 < 5 (sync returns after its
        // block). 3 and 5 race.
        return Prediction(outputs: ["12435", "12453"], deadlocks: false)

    case .concurrentAsync:
        // 2 < 3 (submission), 2 < 4 (program order). 1 is free everywhere, 3 and 4 race.
        return Prediction(
            outputs: ["1234", "1243", "2134", "2143", "2314", "2341", "2413", "2431"], deadlocks: false)

    case .concurrentSyncInsideAsync:
        // No deadlock: a concurrent queue runs the inner sync block beside the outer block.
        // 1 < 2 (submission) < 3 (submission of the inner block) < 4 (sync returns after it);
        // 1 < 5 (program order); 5 may come anywhere after 1.
        return Prediction(outputs: ["12345", "12354", "12534", "15234"], deadlocks: false)

    case .concurrentAsyncInsideSync:
        // 1 < 2 < 4 < 5 (program order, sync returns after its block); 2 < 3 (submission);
        // 3 may start at once on the concurrent queue: anywhere after 2.
        return Prediction(outputs: ["12345", "12435", "12453"], deadlocks: false)

    case .barrierOnPrivateQueue:
        // 1 < 2 (the barrier waits for the earlier block); 3 is the caller's, free.
        return Prediction(outputs: ["123", "132", "312"], deadlocks: false)

    case .barrierOnGlobalQueue:
        // The barrier is ignored on a global queue: no rule orders 1, 2 and 3.
        return Prediction(outputs: ["123", "132", "213", "231", "312", "321"], deadlocks: false)

    case .groupNotify:
        // 1 < 3 and 2 < 3 (notify after the group's blocks); 4 is the caller's, free.
        return Prediction(
            outputs: ["1234", "1243", "1423", "4123", "2134", "2143", "2413", "4213"], deadlocks: false)

    case .asyncAfterVersusAsync:
        // 2 < 3 (submission). The deadline only says "not before": if the caller is descheduled
        // for longer than 300 µs before submitting 3, the delayed block runs first.
        return Prediction(outputs: ["123", "213", "231"], deadlocks: false)

    case .semaphoreHandover:
        // 1 < 2 and 3 < 4 (program order in each block), 3 < 2 (wait returns after the signal).
        return Prediction(outputs: ["1324", "1342", "3124", "3142", "3412"], deadlocks: false)

    case .semaphoreOnOneSerialQueue:
        // The first block waits for a signal from the second, which cannot start before the
        // first ends (one serial queue): 2 and 3 never print. 1 and 4 race.
        return Prediction(outputs: ["14", "41"], deadlocks: true)
    }
}
