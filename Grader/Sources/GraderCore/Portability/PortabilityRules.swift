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
    /// error in the Swift 6 language mode; swift-corelibs and Glibc do not, so they compile here.
    /// (Those that corelibs marks as well, `NSLock.lock()`, `NSCondition.wait()`, `Thread.sleep`,
    /// `Thread.current`, are already errors here.) Sources: Apple's Dispatch overlay as quoted in
    /// compiler output ("Await a Task handle instead", "Use a TaskGroup instead"); Foundation's
    /// `NSLock.h` (`NS_SWIFT_UNAVAILABLE_FROM_ASYNC` on `lock`/`unlock`, which corelibs leaves off
    /// the `NSLocking` protocol); libpthread's `pthread.h` (`__PTHREAD_SWIFT_UNAVAILABLE_FROM_ASYNC`).
    /// Keys are the declarations as the typed syntax tree names them on Linux.
    static let noasyncOnApplePlatforms: [String: String] = {
        var apis: [String: String] = [:]
        for (type, methods) in [("DispatchSemaphore", ["wait()", "wait(timeout:)", "wait(wallTimeout:)"]),
                                ("DispatchGroup", ["wait()", "wait(timeout:)", "wait(wallTimeout:)"])] {
            for method in methods { apis["Dispatch.(file).\(type).\(method)"] = "\(type).\(method)" }
        }
        for method in ["lock()", "unlock()"] { apis["Foundation.(file).NSLocking.\(method)"] = "NSLocking.\(method) (through the protocol)" }
        for function in ["pthread_mutex_lock", "pthread_mutex_unlock", "pthread_mutex_trylock", "pthread_cond_wait",
                         "pthread_cond_timedwait", "pthread_join", "pthread_rwlock_rdlock", "pthread_rwlock_wrlock",
                         "pthread_rwlock_tryrdlock", "pthread_rwlock_trywrlock", "pthread_rwlock_unlock",
                         "pthread_setspecific", "pthread_getspecific", "pthread_setname_np", "pthread_exit"] {
            apis["SwiftGlibc.(file).\(function)"] = function + "()"
        }
        return apis
    }()

    /// A closure handed to `#expect(processExitsWith:)` that opens with a capture list: Swift 6.3
    /// (swift-testing proposal ST-0012); an experimental feature that Swift 6.2 rejects.
    static let exitTestCaptureList = #"processExitsWith[^{]*\{\s*\["#
}
