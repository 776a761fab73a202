import Dispatch
import Foundation

/// The puzzles: short pieces of real GCD code that print single-digit labels.
///
/// `run(printing:)` executes the caller's part on the current thread, which is not on any of the
/// puzzle's queues; blocks it submits may still be running when it returns. Every run makes its
/// own queues (except `barrierOnGlobalQueue`, which uses the shared global queue on purpose).
/// `code` is the same puzzle as text, the way you read it in an interview: there, `print(n)` is
/// the printer's `print`, and `serial`, `concurrent` are made fresh for the puzzle:
///
/// ```swift
/// let serial = DispatchQueue(label: "serial")
/// let concurrent = DispatchQueue(label: "concurrent", attributes: .concurrent)
/// ```
public enum Puzzle: String, CaseIterable, Sendable, CustomStringConvertible {
    // Seed 000's eight: serial and concurrent queue × sync, async, sync inside async, async inside sync.
    case serialSync
    case serialAsync
    case serialSyncInsideAsync
    case serialAsyncInsideSync
    case concurrentSync
    case concurrentAsync
    case concurrentSyncInsideAsync
    case concurrentAsyncInsideSync
    // Beyond the seed.
    case barrierOnPrivateQueue
    case barrierOnGlobalQueue
    case groupNotify
    case asyncAfterVersusAsync
    case semaphoreHandover
    case semaphoreOnOneSerialQueue

    public var description: String { rawValue }

    /// One line: what the puzzle is about.
    public var title: String {
        switch self {
        case .serialSync: "serial queue, sync twice"
        case .serialAsync: "serial queue, async twice"
        case .serialSyncInsideAsync: "serial queue, sync inside async"
        case .serialAsyncInsideSync: "serial queue, async inside sync"
        case .concurrentSync: "concurrent queue, sync twice"
        case .concurrentAsync: "concurrent queue, async twice"
        case .concurrentSyncInsideAsync: "concurrent queue, sync inside async"
        case .concurrentAsyncInsideSync: "concurrent queue, async inside sync"
        case .barrierOnPrivateQueue: "a barrier on a private concurrent queue"
        case .barrierOnGlobalQueue: "the same barrier on a global queue"
        case .groupNotify: "DispatchGroup.notify after async work"
        case .asyncAfterVersusAsync: "asyncAfter against async"
        case .semaphoreHandover: "a semaphore handing over between two serial queues"
        case .semaphoreOnOneSerialQueue: "a semaphore and two blocks on one serial queue"
        }
    }

    /// How many labels the code contains (a complete run prints each once).
    public var labelCount: Int {
        switch self {
        case .serialSync, .serialAsync, .concurrentSync, .concurrentAsync, .groupNotify, .semaphoreHandover,
             .semaphoreOnOneSerialQueue:
            4
        case .serialSyncInsideAsync, .serialAsyncInsideSync, .concurrentSyncInsideAsync, .concurrentAsyncInsideSync:
            5
        case .barrierOnPrivateQueue, .barrierOnGlobalQueue, .asyncAfterVersusAsync:
            3
        }
    }

    /// The puzzle's code as you would read it (the caller's part runs on a thread that is not on
    /// any of these queues).
    public var code: String {
        switch self {
        case .serialSync:
            """
            serial.sync { print(1) }
            print(2)
            serial.sync { print(3) }
            print(4)
            """
        case .serialAsync:
            """
            serial.async { print(1) }
            print(2)
            serial.async { print(3) }
            print(4)
            """
        case .serialSyncInsideAsync:
            """
            print(1)
            serial.async {
                print(2)
                serial.sync { print(3) }
                print(4)
            }
            print(5)
            """
        case .serialAsyncInsideSync:
            """
            print(1)
            serial.sync {
                print(2)
                serial.async { print(3) }
                print(4)
            }
            print(5)
            """
        case .concurrentSync:
            """
            concurrent.sync { print(1) }
            print(2)
            concurrent.sync { print(3) }
            print(4)
            """
        case .concurrentAsync:
            """
            concurrent.async { print(1) }
            print(2)
            concurrent.async { print(3) }
            print(4)
            """
        case .concurrentSyncInsideAsync:
            """
            print(1)
            concurrent.async {
                print(2)
                concurrent.sync { print(3) }
                print(4)
            }
            print(5)
            """
        case .concurrentAsyncInsideSync:
            """
            print(1)
            concurrent.sync {
                print(2)
                concurrent.async { print(3) }
                print(4)
            }
            print(5)
            """
        case .barrierOnPrivateQueue:
            """
            concurrent.async { print(1) }
            concurrent.async(flags: .barrier) { print(2) }
            print(3)
            """
        case .barrierOnGlobalQueue:
            """
            let global = DispatchQueue.global()
            global.async { print(1) }
            global.async(flags: .barrier) { print(2) }
            print(3)
            """
        case .groupNotify:
            """
            let group = DispatchGroup()
            concurrent.async(group: group) { print(1) }
            concurrent.async(group: group) { print(2) }
            group.notify(queue: concurrent) { print(3) }
            print(4)
            """
        case .asyncAfterVersusAsync:
            """
            serial.asyncAfter(deadline: .now() + .microseconds(300)) { print(1) }
            print(2)
            serial.async { print(3) }
            """
        case .semaphoreHandover:
            """
            let first = DispatchQueue(label: "first")     // serial
            let second = DispatchQueue(label: "second")   // serial
            let handover = DispatchSemaphore(value: 0)
            first.async {
                print(1)
                handover.wait()
                print(2)
            }
            second.async {
                print(3)
                handover.signal()
                print(4)
            }
            """
        case .semaphoreOnOneSerialQueue:
            """
            let ready = DispatchSemaphore(value: 0)
            serial.async {
                print(1)
                ready.wait()
                print(2)
            }
            serial.async {
                print(3)
                ready.signal()
            }
            print(4)
            """
        }
    }

    /// Runs the puzzle once: the caller's part on the current thread, printing through `printer`.
    /// Blocks it submitted may still be running (or waiting forever) when this returns.
    public func run(printing printer: Printer) {
        let print = printer.print
        switch self {
        case .serialSync:
            let serial = DispatchQueue(label: "serial")
            serial.sync { print(1) }
            print(2)
            serial.sync { print(3) }
            print(4)
        case .serialAsync:
            let serial = DispatchQueue(label: "serial")
            serial.async { print(1) }
            print(2)
            serial.async { print(3) }
            print(4)
        case .serialSyncInsideAsync:
            let serial = DispatchQueue(label: "serial")
            print(1)
            serial.async {
                print(2)
                serial.sync { print(3) }
                print(4)
            }
            print(5)
        case .serialAsyncInsideSync:
            let serial = DispatchQueue(label: "serial")
            print(1)
            serial.sync {
                print(2)
                serial.async { print(3) }
                print(4)
            }
            print(5)
        case .concurrentSync:
            let concurrent = DispatchQueue(label: "concurrent", attributes: .concurrent)
            concurrent.sync { print(1) }
            print(2)
            concurrent.sync { print(3) }
            print(4)
        case .concurrentAsync:
            let concurrent = DispatchQueue(label: "concurrent", attributes: .concurrent)
            concurrent.async { print(1) }
            print(2)
            concurrent.async { print(3) }
            print(4)
        case .concurrentSyncInsideAsync:
            let concurrent = DispatchQueue(label: "concurrent", attributes: .concurrent)
            print(1)
            concurrent.async {
                print(2)
                concurrent.sync { print(3) }
                print(4)
            }
            print(5)
        case .concurrentAsyncInsideSync:
            let concurrent = DispatchQueue(label: "concurrent", attributes: .concurrent)
            print(1)
            concurrent.sync {
                print(2)
                concurrent.async { print(3) }
                print(4)
            }
            print(5)
        case .barrierOnPrivateQueue:
            let concurrent = DispatchQueue(label: "concurrent", attributes: .concurrent)
            concurrent.async { print(1) }
            concurrent.async(flags: .barrier) { print(2) }
            print(3)
        case .barrierOnGlobalQueue:
            let global = DispatchQueue.global()
            global.async { print(1) }
            global.async(flags: .barrier) { print(2) }
            print(3)
        case .groupNotify:
            let concurrent = DispatchQueue(label: "concurrent", attributes: .concurrent)
            let group = DispatchGroup()
            concurrent.async(group: group) { print(1) }
            concurrent.async(group: group) { print(2) }
            group.notify(queue: concurrent) { print(3) }
            print(4)
        case .asyncAfterVersusAsync:
            let serial = DispatchQueue(label: "serial")
            serial.asyncAfter(deadline: .now() + .microseconds(300)) { print(1) }
            print(2)
            serial.async { print(3) }
        case .semaphoreHandover:
            let first = DispatchQueue(label: "first")
            let second = DispatchQueue(label: "second")
            let handover = DispatchSemaphore(value: 0)
            first.async {
                print(1)
                handover.wait()
                print(2)
            }
            second.async {
                print(3)
                handover.signal()
                print(4)
            }
        case .semaphoreOnOneSerialQueue:
            let serial = DispatchQueue(label: "serial")
            let ready = DispatchSemaphore(value: 0)
            serial.async {
                print(1)
                ready.wait()
                print(2)
            }
            serial.async {
                print(3)
                ready.signal()
            }
            print(4)
        }
    }
}
