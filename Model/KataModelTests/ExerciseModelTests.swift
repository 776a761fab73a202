import Foundation
import KataModel
import ModeledBoundedBufferIfNotWhile
import ModeledBoundedBufferRelockBeforeWait
import ModeledBoundedBufferSemaphores
import ModeledBoundedBufferSignalNotBroadcast
import ModeledBoundedBufferSolution
import ModeledBoundedBufferSubtleRace
import ModeledCancellableWorkGeneration
import ModeledCancellableWorkSolution
import ModeledCancellableWorkSubtleRace
import ModeledDeadlocksAuditAfterUnlock
import ModeledDeadlocksAuditNoLock
import ModeledDeadlocksLockPerPair
import ModeledDeadlocksNonRecursive
import ModeledDeadlocksOneLock
import ModeledDeadlocksOppositeOrder
import ModeledDeadlocksPlainSync
import ModeledDeadlocksRefusedKeepsLocks
import ModeledDeadlocksSolution
import ModeledDeadlocksTotalDecreasing
import ModeledDeadlocksTotalInTurn
import ModeledGatesAndOnceCheckThenAct
import ModeledGatesAndOnceConditionGate
import ModeledGatesAndOnceKeptWork
import ModeledGatesAndOnceMutexStateEnum
import ModeledGatesAndOnceReflexes
import ModeledGatesAndOnceResumeBeforeDecide
import ModeledGatesAndOnceSerialQueueSync
import ModeledGatesAndOnceSolution
import ModeledGatesAndOnceSubtleRace
import ModeledStallMonitorFlagAtSchedule
import ModeledStallMonitorPingsAfterStop
import ModeledStallMonitorSecondTimer
import ModeledStallMonitorSerialQueue
import ModeledStallMonitorSolution
import ModeledStallMonitorStateEnum
import ModeledStallMonitorStrongSelf
import ModeledStallMonitorSubtleRace
import ModeledStallMonitorTimerInInit
import ModeledStallMonitorTimerLeftRunning
import ModeledStallMonitorUnsynchronized
import ModeledThreadSafeDictionaryGlobalBarrier
import ModeledThreadSafeDictionaryLockStyle
import ModeledThreadSafeDictionaryMutexStyle
import ModeledThreadSafeDictionarySolution
import ModeledThreadSafeDictionarySubtleRace
import ModeledThrottledDownloaderCallerWaits
import ModeledThrottledDownloaderCancelOneByOne
import ModeledThrottledDownloaderLateAnswerSignals
import ModeledThrottledDownloaderLockedPullQueue
import ModeledThrottledDownloaderSemaphorePerCall
import ModeledThrottledDownloaderSerialQueueOwner
import ModeledThrottledDownloaderSolution
import ModeledThrottledDownloaderTimeoutAlwaysFrees
import ModeledThrottledDownloaderUnlockedLook
import Testing

/// The model on real exercise code: the exercises' reference solutions
/// and wrong implementations, compiled unchanged with the twins, under each exercise's checks.
@Suite struct ExerciseModelTests {
    /// Schedules a right implementation must pass per check here; `KATA_MODEL_SCHEDULES=100000`
    /// runs the long version.
    static let rightBudget = ProcessInfo.processInfo.environment["KATA_MODEL_SCHEDULES"].flatMap(Int.init) ?? 2_000
    /// Within how many schedules each order bug must be found.
    static let wrongBudget = 1_000

    static let right: [(String, [ModelCheck])] = [
        ("ThreadSafeDictionary solution", ModeledThreadSafeDictionarySolution.modelChecks),
        ("ThreadSafeDictionary with one NSLock", ModeledThreadSafeDictionaryLockStyle.modelChecks),
        ("ThreadSafeDictionary with a Mutex", ModeledThreadSafeDictionaryMutexStyle.modelChecks),
        ("BoundedBuffer solution", ModeledBoundedBufferSolution.modelChecks),
        ("BoundedBuffer with two counting semaphores", ModeledBoundedBufferSemaphores.modelChecks),
        ("Deadlocks solution", ModeledDeadlocksSolution.modelChecks),
        ("GatesAndOnce solution (SessionQueue, Lazy)", ModeledGatesAndOnceSolution.modelChecks),
        ("GatesAndOnce with a Mutex and a state enum", ModeledGatesAndOnceMutexStateEnum.modelChecks),
        ("GatesAndOnce with a serial queue's sync", ModeledGatesAndOnceSerialQueueSync.modelChecks),
        ("GatesAndOnce with an NSCondition gate and a recursive lock across the initializer", ModeledGatesAndOnceConditionGate.modelChecks),
        ("GatesAndOnce with its work kept behind a Mutex while closed", ModeledGatesAndOnceKeptWork.modelChecks),
        ("CancellableWork solution (Debouncer)", ModeledCancellableWorkSolution.modelChecks),
        ("CancellableWork with a generation number and [weak self] (Debouncer)", ModeledCancellableWorkGeneration.modelChecks),
        ("ThrottledDownloader solution", ModeledThrottledDownloaderSolution.modelChecks),
        ("ThrottledDownloader with one serial queue owning the state", ModeledThrottledDownloaderSerialQueueOwner.modelChecks),
        ("ThrottledDownloader with a locked pull queue and no semaphore", ModeledThrottledDownloaderLockedPullQueue.modelChecks),
        ("StallMonitor solution", ModeledStallMonitorSolution.modelChecks),
        ("StallMonitor with one recursive lock around a state enum", ModeledStallMonitorStateEnum.modelChecks),
        ("StallMonitor with its timer confined to a serial queue", ModeledStallMonitorSerialQueue.modelChecks),
    ]

    @Test(arguments: right)
    func rightImplementationsPassEverySchedule(_ implementation: String, _ checks: [ModelCheck]) {
        let start = Date()
        var schedules = 0
        for check in checks {
            let result = Explorer(budget: Self.rightBudget).explore(check.body)
            schedules += result.tried
            if let failure = result.failure {
                Issue.record("\(implementation), \(check.name):\n\(SwimLanes.render(failure))")
            }
        }
        let seconds = Date().timeIntervalSince(start)
        print("[model] \(implementation): \(schedules) schedules over \(checks.count) checks in \(String(format: "%.2f", seconds)) s (\(Int(Double(schedules) / seconds)) per second)")
    }

    /// A wrong implementation, the check that must find it, and how it must end.
    struct Wrong: Sendable, CustomTestStringConvertible {
        let implementation: String
        let check: ModelCheck
        let deadlock: Bool
        var testDescription: String { "\(implementation): \(check.name)" }
    }

    static let wrong: [Wrong] = [
        Wrong(implementation: "ThreadSafeDictionary SubtleRace", check: ModeledThreadSafeDictionarySubtleRace.modelChecks[0], deadlock: false),
        Wrong(implementation: "ThreadSafeDictionary GlobalBarrier", check: ModeledThreadSafeDictionaryGlobalBarrier.modelChecks[1], deadlock: false),
        Wrong(implementation: "ThreadSafeDictionary GlobalBarrier", check: ModeledThreadSafeDictionaryGlobalBarrier.modelChecks[2], deadlock: false),
        Wrong(implementation: "BoundedBuffer SubtleRace", check: ModeledBoundedBufferSubtleRace.modelChecks[0], deadlock: true),
        Wrong(implementation: "BoundedBuffer SubtleRace", check: ModeledBoundedBufferSubtleRace.modelChecks[1], deadlock: true),
        Wrong(implementation: "BoundedBuffer SubtleRace", check: ModeledBoundedBufferSubtleRace.modelChecks[2], deadlock: true),
        Wrong(implementation: "BoundedBuffer RelockBeforeWait", check: ModeledBoundedBufferRelockBeforeWait.modelChecks[0], deadlock: true),
        Wrong(implementation: "BoundedBuffer RelockBeforeWait", check: ModeledBoundedBufferRelockBeforeWait.modelChecks[1], deadlock: true),
        Wrong(implementation: "BoundedBuffer RelockBeforeWait", check: ModeledBoundedBufferRelockBeforeWait.modelChecks[2], deadlock: true),
        Wrong(implementation: "BoundedBuffer SignalNotBroadcast", check: ModeledBoundedBufferSignalNotBroadcast.modelChecks[1], deadlock: true),
        Wrong(implementation: "BoundedBuffer SignalNotBroadcast", check: ModeledBoundedBufferSignalNotBroadcast.modelChecks[3], deadlock: true),
        Wrong(implementation: "BoundedBuffer IfNotWhile", check: ModeledBoundedBufferIfNotWhile.modelChecks[3], deadlock: false),
        Wrong(implementation: "Deadlocks OppositeOrder", check: ModeledDeadlocksOppositeOrder.modelChecks[0], deadlock: true),
        Wrong(implementation: "Deadlocks OppositeOrder", check: ModeledDeadlocksOppositeOrder.modelChecks[2], deadlock: true),
        Wrong(implementation: "Deadlocks PlainSync", check: ModeledDeadlocksPlainSync.modelChecks[1], deadlock: true),
        Wrong(implementation: "Deadlocks TotalInTurn", check: ModeledDeadlocksTotalInTurn.modelChecks[3], deadlock: false),
        Wrong(implementation: "Deadlocks TotalDecreasing", check: ModeledDeadlocksTotalDecreasing.modelChecks[3], deadlock: true),
        Wrong(implementation: "Deadlocks NonRecursive", check: ModeledDeadlocksNonRecursive.modelChecks[7], deadlock: true),
        Wrong(implementation: "Deadlocks AuditNoLock", check: ModeledDeadlocksAuditNoLock.modelChecks[4], deadlock: false),
        Wrong(implementation: "Deadlocks AuditAfterUnlock", check: ModeledDeadlocksAuditAfterUnlock.modelChecks[4], deadlock: false),
        Wrong(implementation: "Deadlocks OneLock", check: ModeledDeadlocksOneLock.modelChecks[6], deadlock: true),
        Wrong(implementation: "Deadlocks LockPerPair", check: ModeledDeadlocksLockPerPair.modelChecks[5], deadlock: false),
        Wrong(implementation: "Deadlocks RefusedKeepsLocks", check: ModeledDeadlocksRefusedKeepsLocks.modelChecks[8], deadlock: true),
        Wrong(implementation: "GatesAndOnce CheckThenAct", check: ModeledGatesAndOnceCheckThenAct.modelChecks[0], deadlock: false),
        Wrong(implementation: "GatesAndOnce CheckThenAct", check: ModeledGatesAndOnceCheckThenAct.modelChecks[1], deadlock: false),
        Wrong(implementation: "GatesAndOnce SubtleRace", check: ModeledGatesAndOnceSubtleRace.modelChecks[0], deadlock: true),
        Wrong(implementation: "GatesAndOnce Reflexes", check: ModeledGatesAndOnceReflexes.modelChecks[2], deadlock: true),
        Wrong(implementation: "GatesAndOnce Reflexes", check: ModeledGatesAndOnceReflexes.modelChecks[3], deadlock: true),
        Wrong(implementation: "GatesAndOnce Reflexes", check: ModeledGatesAndOnceReflexes.modelChecks[4], deadlock: false),
        Wrong(implementation: "GatesAndOnce ResumeBeforeDecide", check: ModeledGatesAndOnceResumeBeforeDecide.modelChecks[0], deadlock: false),
        Wrong(implementation: "GatesAndOnce ResumeBeforeDecide", check: ModeledGatesAndOnceResumeBeforeDecide.modelChecks[4], deadlock: false),
        Wrong(implementation: "CancellableWork SubtleRace", check: ModeledCancellableWorkSubtleRace.modelChecks[0], deadlock: false),
        Wrong(implementation: "ThrottledDownloader LateAnswerSignals", check: ModeledThrottledDownloaderLateAnswerSignals.modelChecks[0], deadlock: false),
        Wrong(implementation: "ThrottledDownloader TimeoutAlwaysFrees", check: ModeledThrottledDownloaderTimeoutAlwaysFrees.modelChecks[0], deadlock: false),
        Wrong(implementation: "ThrottledDownloader UnlockedLook", check: ModeledThrottledDownloaderUnlockedLook.modelChecks[0], deadlock: false),
        Wrong(implementation: "ThrottledDownloader UnlockedLook", check: ModeledThrottledDownloaderUnlockedLook.modelChecks[2], deadlock: false),
        Wrong(implementation: "ThrottledDownloader SemaphorePerCall", check: ModeledThrottledDownloaderSemaphorePerCall.modelChecks[1], deadlock: false),
        Wrong(implementation: "ThrottledDownloader CancelOneByOne", check: ModeledThrottledDownloaderCancelOneByOne.modelChecks[2], deadlock: false),
        Wrong(implementation: "ThrottledDownloader CallerWaits", check: ModeledThrottledDownloaderCallerWaits.modelChecks[3], deadlock: false),
        Wrong(implementation: "StallMonitor SubtleRace", check: ModeledStallMonitorSubtleRace.modelChecks[0], deadlock: false),
        Wrong(implementation: "StallMonitor Unsynchronized", check: ModeledStallMonitorUnsynchronized.modelChecks[0], deadlock: false),
        Wrong(implementation: "StallMonitor FlagAtSchedule", check: ModeledStallMonitorFlagAtSchedule.modelChecks[0], deadlock: false),
        Wrong(implementation: "StallMonitor PingsAfterStop", check: ModeledStallMonitorPingsAfterStop.modelChecks[2], deadlock: false),
        Wrong(implementation: "StallMonitor TimerLeftRunning", check: ModeledStallMonitorTimerLeftRunning.modelChecks[2], deadlock: false),
        Wrong(implementation: "StallMonitor SecondTimer", check: ModeledStallMonitorSecondTimer.modelChecks[3], deadlock: false),
        Wrong(implementation: "StallMonitor PingsAfterStop", check: ModeledStallMonitorPingsAfterStop.modelChecks[4], deadlock: false),
        Wrong(implementation: "StallMonitor StrongSelf", check: ModeledStallMonitorStrongSelf.modelChecks[5], deadlock: false),
        Wrong(implementation: "StallMonitor TimerInInit", check: ModeledStallMonitorTimerInInit.modelChecks[5], deadlock: false),
    ]

    @Test(arguments: wrong)
    func orderBugsAreFoundTheSameWayEveryRunAndReplay(_ wrong: Wrong) throws {
        let explorer = Explorer(budget: Self.wrongBudget)
        let start = Date()
        let found = explorer.explore(wrong.check.body)
        let seconds = Date().timeIntervalSince(start)
        let failure = try #require(found.failure, "\(wrong.testDescription) passed \(found.tried) schedules")
        if case .deadlock = failure.schedule.outcome {
            #expect(wrong.deadlock, "\(wrong.testDescription) deadlocked where a violated property was expected")
        } else {
            #expect(!wrong.deadlock, "\(wrong.testDescription): expected a deadlock, got \(failure.schedule.outcome)")
        }
        // The same schedule on every run, and again from its number and from its decisions.
        let again = try #require(explorer.explore(wrong.check.body).failure)
        #expect(again.number == failure.number)
        #expect(again.code == failure.code)
        #expect(SwimLanes.render(again) == SwimLanes.render(failure))
        let replayed = explorer.replay(failure.number, wrong.check.body)
        #expect(replayed.decisions == failure.schedule.decisions)
        #expect(replayed.outcome == failure.schedule.outcome)
        let fromCode = try #require(explorer.replay(code: failure.code, wrong.check.body))
        #expect(fromCode.outcome == failure.schedule.outcome)
        print("[model] \(wrong.testDescription): found after \(failure.tried) schedules in \(String(format: "%.3f", seconds)) s\n\(SwimLanes.render(failure))\n")
    }
}

/// A schedule is a function of the code and its number alone: these numbers and decision codes
/// were printed on one machine (Linux x86_64, 2026-11-26) and must come out the same on any
/// other, in a fresh clone. If the exercise's code or the twins change, print them again.
@Suite struct PinnedScheduleTests {
    struct Pin: Sendable, CustomTestStringConvertible {
        let name: String
        let check: ModelCheck
        let number: UInt64
        let code: String
        var testDescription: String { name }
    }

    static let pins: [Pin] = [
        Pin(name: "ThreadSafeDictionary SubtleRace", check: ModeledThreadSafeDictionarySubtleRace.modelChecks[0], number: 1, code: "0*4.1*5."),
        Pin(name: "BoundedBuffer SubtleRace", check: ModeledBoundedBufferSubtleRace.modelChecks[0], number: 3, code: "1*4.220111"),
        Pin(name: "Deadlocks OppositeOrder", check: ModeledDeadlocksOppositeOrder.modelChecks[0], number: 3, code: "112200"),
        Pin(name: "GatesAndOnce CheckThenAct", check: ModeledGatesAndOnceCheckThenAct.modelChecks[0], number: 2, code: "0333010*12.1*4."),
        Pin(name: "CancellableWork SubtleRace", check: ModeledCancellableWorkSubtleRace.modelChecks[0], number: 0, code: "12112221001101"),
        Pin(name: "Deadlocks TotalInTurn", check: ModeledDeadlocksTotalInTurn.modelChecks[3], number: 1, code: "0*6.1*5."),
        Pin(name: "GatesAndOnce Reflexes", check: ModeledGatesAndOnceReflexes.modelChecks[2], number: 2, code: "011100"),
        Pin(name: "ThrottledDownloader LateAnswerSignals", check: ModeledThrottledDownloaderLateAnswerSignals.modelChecks[0], number: 1, code: "0*24.11001*15.0*4."),
        Pin(name: "ThrottledDownloader CancelOneByOne", check: ModeledThrottledDownloaderCancelOneByOne.modelChecks[2], number: 1, code: "0*28.1*10.23*4.21*4."),
    ]

    @Test(arguments: pins)
    func theFirstFailingScheduleIsTheOnePrintedElsewhere(_ pin: Pin) throws {
        let failure = try #require(Explorer(budget: 1_000).explore(pin.check.body).failure)
        print("[model] pin \(pin.name): number \(failure.number), code \"\(failure.code)\"")
        #expect(failure.number == pin.number)
        #expect(failure.code == pin.code)
        let replayed = try #require(Explorer(budget: 1).replay(code: pin.code, pin.check.body))
        #expect(replayed.failed)
    }
}
