import Foundation

/// What the portability check looks for. Each rule names the documented fact it rests on.
enum PortabilityRules {
    /// A use of `pattern` (a regular expression over code, comments and strings blanked) needs
    /// macOS `version` or later.
    struct Requirement {
        var pattern: String
        var version: [Int]
        var what: String
    }

    /// SwiftPM builds for macOS 10.13 unless `platforms:` says otherwise
    /// (swift-package-manager, Sources/PackageModel/Platform.swift, `oldestSupportedVersion`).
    static let swiftPMDefaultMacOS = [10, 13]

    static let macOSRequirements: [Requirement] = [
        // The Swift concurrency runtime ships with macOS 10.15 (Swift 5.5 back-deployment).
        Requirement(pattern: #"\bawait\b|\bactor\b|AsyncStream|\)\s*async\b|\bTask\s*\{|\bTask\.detached\b"#, version: [10, 15], what: "Swift concurrency (async, await, actors, tasks)"),
        // swift-testing's own Package.swift: `.macOS(.v10_15)`.
        Requirement(pattern: #"^\s*(@testable\s+)?import\s+Testing\b"#, version: [10, 15], what: "Swift Testing"),
        // Foundation's throwing FileHandle API: `@available(macOS 10.15.4, …)`.
        Requirement(pattern: #"\.(readToEnd|seekToEnd)\(\)|\.seek\(toOffset:|\.write\(contentsOf:"#, version: [10, 15, 4], what: "FileHandle's throwing API"),
        // `Duration`, `ContinuousClock`, `Task.sleep(for:)`: `@available(macOS 13.0, …)`.
        Requirement(pattern: #"\bContinuousClock\b|\bSuspendingClock\b|\bDuration\b|\.sleep\(for:"#, version: [13, 0], what: "clocks and Duration"),
        // `URL(filePath:)`, `appending(path:)`: macOS 13.
        Requirement(pattern: #"URL\(filePath:|\.appending\(path:|\.appending\(component:"#, version: [13, 0], what: "URL's path API"),
        // The Synchronization module (`Mutex`, `Atomic`): `@available(macOS 15.0, …)`.
        Requirement(pattern: #"\bimport\s+Synchronization\b|\bMutex<|\bAtomic<"#, version: [15, 0], what: "the Synchronization module (Mutex, Atomic)"),
    ]

    /// Symbols that exist only in Glibc or only on Linux, with what to use instead. A use outside
    /// an `#if os(Linux)` or `#if canImport(Glibc)` block breaks the build on a Mac.
    static let linuxOnly: [(pattern: String, instead: String)] = [
        (#"^\s*import\s+(Glibc|Musl)\b"#, "import it under `#if canImport(Glibc)`, with `#elseif canImport(Darwin)` `import Darwin`"),
        (#"\bGlibc\."#, "no module prefix, or guard it"),
        (#"\bimport\s+FoundationNetworking\b"#, "`#if canImport(FoundationNetworking)` (URLSession is in Foundation on Apple platforms)"),
        (#"\bRUSAGE_THREAD\b"#, "per-thread usage is Linux-only; on Darwin use `RUSAGE_SELF` or Mach's `thread_info`"),
        (#""/proc/"#, "/proc does not exist on macOS"),
        (#"\bst_(mtim|atim|ctim)\b"#, "Darwin names them `st_mtimespec`, `st_atimespec`, `st_ctimespec`; or use FileManager's attributes"),
        (#"\bgettid\("#, "Darwin has `pthread_threadid_np`; identify threads by `Thread.current` where you can"),
        (#"\b(SOCK_CLOEXEC|SOCK_NONBLOCK|MSG_NOSIGNAL|O_TMPFILE|O_DIRECT|CLOCK_BOOTTIME)\b"#, "Linux-only flag: on Darwin use `fcntl(FD_CLOEXEC)`, `SO_NOSIGPIPE`, …"),
        (#"\b(sched_getaffinity|sched_setaffinity|sched_getcpu|epoll_\w+|eventfd|inotify_\w+|prctl|accept4|pipe2|splice|get_nprocs|sysinfo|mallinfo2?|malloc_usable_size|__errno_location)\("#, "Linux-only function"),
        (#"\bpthread_setname_np\(\s*pthread_self\(\)"#, "Darwin's `pthread_setname_np` takes only the name (and names the calling thread)"),
        (#"\b(SIGPOLL|SIGPWR|SIGSTKFLT|SIGRTMIN|SIGRTMAX)\b"#, "Linux-only signal"),
    ]

    /// Apple's SDK marks these unavailable from asynchronous contexts (`noasync`), which is an
    /// error in the Swift 6 language mode; swift-corelibs does not, so they compile here. The
    /// declarations as the typed syntax tree names them.
    static let noasyncOnApplePlatforms: [String: String] = [
        "Dispatch.(file).DispatchSemaphore.wait()": "DispatchSemaphore.wait()",
        "Dispatch.(file).DispatchSemaphore.wait(timeout:)": "DispatchSemaphore.wait(timeout:)",
        "Dispatch.(file).DispatchSemaphore.wait(wallTimeout:)": "DispatchSemaphore.wait(wallTimeout:)",
        "Dispatch.(file).DispatchGroup.wait()": "DispatchGroup.wait()",
        "Dispatch.(file).DispatchGroup.wait(timeout:)": "DispatchGroup.wait(timeout:)",
        "Dispatch.(file).DispatchGroup.wait(wallTimeout:)": "DispatchGroup.wait(wallTimeout:)",
        "Foundation.(file).NSLock.lock()": "NSLock.lock()",
        "Foundation.(file).NSLock.unlock()": "NSLock.unlock()",
        "Foundation.(file).NSLock.lock(before:)": "NSLock.lock(before:)",
        "Foundation.(file).NSRecursiveLock.lock()": "NSRecursiveLock.lock()",
        "Foundation.(file).NSRecursiveLock.unlock()": "NSRecursiveLock.unlock()",
        "Foundation.(file).NSCondition.lock()": "NSCondition.lock()",
        "Foundation.(file).NSCondition.unlock()": "NSCondition.unlock()",
        "Foundation.(file).NSCondition.wait()": "NSCondition.wait()",
        "Foundation.(file).NSCondition.wait(until:)": "NSCondition.wait(until:)",
        "Foundation.(file).NSConditionLock.lock()": "NSConditionLock.lock()",
        "Foundation.(file).NSConditionLock.unlock()": "NSConditionLock.unlock()",
        "Foundation.(file).NSLocking.lock()": "NSLocking.lock()",
        "Foundation.(file).NSLocking.unlock()": "NSLocking.unlock()",
    ]

    /// A closure handed to `#expect(processExitsWith:)` that opens with a capture list: Swift 6.3
    /// (swift-testing proposal ST-0012); an experimental feature that Swift 6.2 rejects.
    static let exitTestCaptureList = #"processExitsWith[^{]*\{\s*\["#
}
