import KataTripwire

/// Predicts what `puzzle` can print.
///
/// For every puzzle, return the set of **every** output it can print (each label once, as a string
/// of digits: `"2413"`), and whether it deadlocks. A puzzle that deadlocks prints some labels and
/// then stops forever: list what it has printed once everything that can still run has run, and
/// set `deadlocks` to true. An output that breaks a happens-before rule is wrong; an output that
/// real runs print and you left out is wrong too.
///
/// Read each puzzle's code with `puzzle.code` (it is also in this exercise's README). The caller's
/// part runs on a thread that is not on any of the puzzle's queues.
public func predict(_ puzzle: Puzzle) -> Prediction {
    Tripwire.call()
    switch puzzle {
    case .serialSync:
        // serial.sync { print(1) }; print(2); serial.sync { print(3) }; print(4)
        return Prediction(outputs: [], deadlocks: false)
    case .serialAsync:
        // serial.async { print(1) }; print(2); serial.async { print(3) }; print(4)
        return Prediction(outputs: [], deadlocks: false)
    case .serialSyncInsideAsync:
        // print(1); serial.async { print(2); serial.sync { print(3) }; print(4) }; print(5)
        return Prediction(outputs: [], deadlocks: false)
    case .serialAsyncInsideSync:
        // print(1); serial.sync { print(2); serial.async { print(3) }; print(4) }; print(5)
        return Prediction(outputs: [], deadlocks: false)
    case .concurrentSync:
        // concurrent.sync { print(1) }; print(2); concurrent.sync { print(3) }; print(4)
        return Prediction(outputs: [], deadlocks: false)
    case .concurrentAsync:
        // concurrent.async { print(1) }; print(2); concurrent.async { print(3) }; print(4)
        return Prediction(outputs: [], deadlocks: false)
    case .concurrentSyncInsideAsync:
        // print(1); concurrent.async { print(2); concurrent.sync { print(3) }; print(4) }; print(5)
        return Prediction(outputs: [], deadlocks: false)
    case .concurrentAsyncInsideSync:
        // print(1); concurrent.sync { print(2); concurrent.async { print(3) }; print(4) }; print(5)
        return Prediction(outputs: [], deadlocks: false)
    case .barrierOnPrivateQueue:
        // concurrent.async { print(1) }; concurrent.async(flags: .barrier) { print(2) }; print(3)
        return Prediction(outputs: [], deadlocks: false)
    case .barrierOnGlobalQueue:
        // global.async { print(1) }; global.async(flags: .barrier) { print(2) }; print(3)
        return Prediction(outputs: [], deadlocks: false)
    case .groupNotify:
        // concurrent.async(group: group) { print(1) }; concurrent.async(group: group) { print(2) }
        // group.notify(queue: concurrent) { print(3) }; print(4)
        return Prediction(outputs: [], deadlocks: false)
    case .asyncAfterVersusAsync:
        // serial.asyncAfter(deadline: .now() + .microseconds(300)) { print(1) }; print(2); serial.async { print(3) }
        return Prediction(outputs: [], deadlocks: false)
    case .semaphoreHandover:
        // first.async { print(1); handover.wait(); print(2) }
        // second.async { print(3); handover.signal(); print(4) }
        return Prediction(outputs: [], deadlocks: false)
    case .semaphoreOnOneSerialQueue:
        // serial.async { print(1); ready.wait(); print(2) }; serial.async { print(3); ready.signal() }; print(4)
        return Prediction(outputs: [], deadlocks: false)
    }
}
