// kata-model: runs the model checks of the exercises built with twins, or replays one schedule.
//
//   swift run --scratch-path .build-model kata-model check [Exercise [Implementation]] [--budget N] [--check NAME]
//   swift run --scratch-path .build-model kata-model replay Exercise Implementation Check (number | code:DECISIONS)
//
// (with KATA_MODEL=1 in the environment). The grader does not call it: `grader model` and
// `grader replay` run the learner's build of the model (`Model/Runners/`).
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

let builds: [(exercise: String, implementation: String, checks: [ModelCheck])] = [
    ("ThreadSafeDictionary", "Solution", ModeledThreadSafeDictionarySolution.modelChecks),
    ("ThreadSafeDictionary", "LockStyle", ModeledThreadSafeDictionaryLockStyle.modelChecks),
    ("ThreadSafeDictionary", "MutexStyle", ModeledThreadSafeDictionaryMutexStyle.modelChecks),
    ("ThreadSafeDictionary", "SubtleRace", ModeledThreadSafeDictionarySubtleRace.modelChecks),
    ("ThreadSafeDictionary", "GlobalBarrier", ModeledThreadSafeDictionaryGlobalBarrier.modelChecks),
    ("BoundedBuffer", "Solution", ModeledBoundedBufferSolution.modelChecks),
    ("BoundedBuffer", "SubtleRace", ModeledBoundedBufferSubtleRace.modelChecks),
    ("BoundedBuffer", "RelockBeforeWait", ModeledBoundedBufferRelockBeforeWait.modelChecks),
    ("BoundedBuffer", "SignalNotBroadcast", ModeledBoundedBufferSignalNotBroadcast.modelChecks),
    ("BoundedBuffer", "Semaphores", ModeledBoundedBufferSemaphores.modelChecks),
    ("BoundedBuffer", "IfNotWhile", ModeledBoundedBufferIfNotWhile.modelChecks),
    ("Deadlocks", "Solution", ModeledDeadlocksSolution.modelChecks),
    ("Deadlocks", "OppositeOrder", ModeledDeadlocksOppositeOrder.modelChecks),
    ("Deadlocks", "PlainSync", ModeledDeadlocksPlainSync.modelChecks),
    ("Deadlocks", "TotalInTurn", ModeledDeadlocksTotalInTurn.modelChecks),
    ("Deadlocks", "TotalDecreasing", ModeledDeadlocksTotalDecreasing.modelChecks),
    ("Deadlocks", "NonRecursive", ModeledDeadlocksNonRecursive.modelChecks),
    ("Deadlocks", "AuditNoLock", ModeledDeadlocksAuditNoLock.modelChecks),
    ("Deadlocks", "AuditAfterUnlock", ModeledDeadlocksAuditAfterUnlock.modelChecks),
    ("Deadlocks", "OneLock", ModeledDeadlocksOneLock.modelChecks),
    ("Deadlocks", "LockPerPair", ModeledDeadlocksLockPerPair.modelChecks),
    ("Deadlocks", "RefusedKeepsLocks", ModeledDeadlocksRefusedKeepsLocks.modelChecks),
    ("GatesAndOnce", "Solution", ModeledGatesAndOnceSolution.modelChecks),
    ("GatesAndOnce", "CheckThenAct", ModeledGatesAndOnceCheckThenAct.modelChecks),
    ("GatesAndOnce", "SubtleRace", ModeledGatesAndOnceSubtleRace.modelChecks),
    ("GatesAndOnce", "Reflexes", ModeledGatesAndOnceReflexes.modelChecks),
    ("GatesAndOnce", "ResumeBeforeDecide", ModeledGatesAndOnceResumeBeforeDecide.modelChecks),
    ("GatesAndOnce", "MutexStateEnum", ModeledGatesAndOnceMutexStateEnum.modelChecks),
    ("GatesAndOnce", "SerialQueueSync", ModeledGatesAndOnceSerialQueueSync.modelChecks),
    ("GatesAndOnce", "ConditionGate", ModeledGatesAndOnceConditionGate.modelChecks),
    ("GatesAndOnce", "KeptWork", ModeledGatesAndOnceKeptWork.modelChecks),
    ("CancellableWork", "Solution", ModeledCancellableWorkSolution.modelChecks),
    ("CancellableWork", "SubtleRace", ModeledCancellableWorkSubtleRace.modelChecks),
    ("CancellableWork", "Generation", ModeledCancellableWorkGeneration.modelChecks),
    ("ThrottledDownloader", "Solution", ModeledThrottledDownloaderSolution.modelChecks),
    ("ThrottledDownloader", "SerialQueueOwner", ModeledThrottledDownloaderSerialQueueOwner.modelChecks),
    ("ThrottledDownloader", "LockedPullQueue", ModeledThrottledDownloaderLockedPullQueue.modelChecks),
    ("ThrottledDownloader", "LateAnswerSignals", ModeledThrottledDownloaderLateAnswerSignals.modelChecks),
    ("ThrottledDownloader", "TimeoutAlwaysFrees", ModeledThrottledDownloaderTimeoutAlwaysFrees.modelChecks),
    ("ThrottledDownloader", "UnlockedLook", ModeledThrottledDownloaderUnlockedLook.modelChecks),
    ("ThrottledDownloader", "CancelOneByOne", ModeledThrottledDownloaderCancelOneByOne.modelChecks),
    ("ThrottledDownloader", "CallerWaits", ModeledThrottledDownloaderCallerWaits.modelChecks),
    ("ThrottledDownloader", "SemaphorePerCall", ModeledThrottledDownloaderSemaphorePerCall.modelChecks),
    ("StallMonitor", "Solution", ModeledStallMonitorSolution.modelChecks),
    ("StallMonitor", "SubtleRace", ModeledStallMonitorSubtleRace.modelChecks),
    ("StallMonitor", "PingsAfterStop", ModeledStallMonitorPingsAfterStop.modelChecks),
    ("StallMonitor", "TimerLeftRunning", ModeledStallMonitorTimerLeftRunning.modelChecks),
    ("StallMonitor", "Unsynchronized", ModeledStallMonitorUnsynchronized.modelChecks),
    ("StallMonitor", "SecondTimer", ModeledStallMonitorSecondTimer.modelChecks),
    ("StallMonitor", "FlagAtSchedule", ModeledStallMonitorFlagAtSchedule.modelChecks),
    ("StallMonitor", "StrongSelf", ModeledStallMonitorStrongSelf.modelChecks),
    ("StallMonitor", "TimerInInit", ModeledStallMonitorTimerInInit.modelChecks),
    ("StallMonitor", "StateEnum", ModeledStallMonitorStateEnum.modelChecks),
    ("StallMonitor", "SerialQueue", ModeledStallMonitorSerialQueue.modelChecks),
]

func usage() -> Never {
    print("usage: kata-model check [Exercise [Implementation]] [--budget N] [--check NAME]")
    print("       kata-model replay Exercise Implementation Check (number | code:DECISIONS)")
    print("builds: " + builds.map { "\($0.exercise) \($0.implementation)" }.joined(separator: ", "))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var budget = 1_000
if let index = arguments.firstIndex(of: "--budget") {
    guard arguments.indices.contains(index + 1), let value = Int(arguments[index + 1]) else { usage() }
    budget = value
    arguments.removeSubrange(index...index + 1)
}
var onlyCheck: String?
if let index = arguments.firstIndex(of: "--check") {
    guard arguments.indices.contains(index + 1) else { usage() }
    onlyCheck = arguments[index + 1]
    arguments.removeSubrange(index...index + 1)
}
guard let command = arguments.first else { usage() }

switch command {
case "check":
    let selected = builds.filter { build in
        (arguments.count < 2 || build.exercise == arguments[1]) && (arguments.count < 3 || build.implementation == arguments[2])
    }
    guard !selected.isEmpty else { usage() }
    var failed = false
    for build in selected {
        let start = Date()
        var schedules = 0
        for check in build.checks where onlyCheck == nil || check.name == onlyCheck {
            let result = Explorer(budget: budget).explore(check.body)
            schedules += result.tried
            if let failure = result.failure {
                failed = true
                print("✗ \(build.exercise) \(build.implementation), \(check.name):")
                print(SwimLanes.render(failure))
                print("replay: kata-model replay \(build.exercise) \(build.implementation) \"\(check.name)\" \(failure.number)\n")
            } else {
                print("✓ \(build.exercise) \(build.implementation), \(check.name): \(result.tried) schedules")
            }
        }
        let seconds = Date().timeIntervalSince(start)
        print("  \(build.exercise) \(build.implementation): \(schedules) schedules in \(String(format: "%.2f", seconds)) s\n")
    }
    exit(failed ? 1 : 0)
case "replay":
    guard arguments.count == 5,
          let build = builds.first(where: { $0.exercise == arguments[1] && $0.implementation == arguments[2] }),
          let check = build.checks.first(where: { $0.name == arguments[3] })
    else { usage() }
    let explorer = Explorer(budget: 1)
    let schedule: Schedule
    // "code:112200" is a list of decisions; a plain number is a schedule number.
    if arguments[4].hasPrefix("code:"), let replayed = explorer.replay(code: String(arguments[4].dropFirst(5)), check.body) {
        schedule = replayed
    } else if let number = UInt64(arguments[4]) {
        schedule = explorer.replay(number, check.body)
    } else if let replayed = explorer.replay(code: arguments[4], check.body) {
        schedule = replayed
    } else {
        usage()
    }
    print(SwimLanes.render(schedule, header: ["Replay of \(arguments[4]) (\(schedule.strategyName)) / 重放 \(arguments[4])"], window: 40))
    exit(schedule.failed ? 1 : 0)
default:
    usage()
}
