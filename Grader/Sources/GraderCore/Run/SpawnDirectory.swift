import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The child's working directory, set by `posix_spawn` itself.
///
/// The grader used to change its own working directory around each spawn; but that directory is
/// the whole process's, and the grader spawns from several threads at once (suites side by side,
/// reruns side by side), while other code reads it: one thread's child could start in another's
/// folder, and `KataLayout.find()` in the grader's own tests once found no course (verify, a
/// fresh clone). `posix_spawn_file_actions_addchdir_np` changes the directory in the child only:
/// glibc 2.29 and later, macOS 10.15 and later (gnulib's portability notes; the `spawn.h` of
/// both; SwiftPM's own `TSCclibc/process.c` wraps it the same way for older glibc). Without it
/// (Amazon Linux 2 has glibc 2.26) the old way is kept, one spawn at a time.
enum SpawnDirectory {
    #if canImport(Darwin)
    /// `posix_spawn_file_actions_t` is a pointer there, and the variable holding it optional.
    typealias Actions = posix_spawn_file_actions_t?
    /// `RTLD_DEFAULT` in Darwin's `dlfcn.h`: `((void *) -2)`.
    static var everyImage: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: -2) }
    #else
    typealias Actions = posix_spawn_file_actions_t
    /// `RTLD_DEFAULT` in glibc's `dlfcn.h`: a null handle.
    static var everyImage: UnsafeMutableRawPointer? { nil }
    #endif
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<Actions>, UnsafePointer<CChar>) -> Int32

    /// The C library's function, if it has it. Looked up at run time on both systems: glibc before
    /// 2.29 lacks it, and a direct call would tie the build to one SDK's spelling of it (the POSIX
    /// 2024 name without `_np` is newer still).
    static let addChdir: AddChdir? = dlsym(everyImage, "posix_spawn_file_actions_addchdir_np").map { unsafeBitCast($0, to: AddChdir.self) }

    /// Adds "change to `path`" to the spawn's file actions; false when this system cannot.
    static func add(_ path: String, to actions: UnsafeMutablePointer<Actions>) -> Bool {
        guard let addChdir else { return false }
        return addChdir(actions, path) == 0
    }

    /// Serializes the fallback: changing the process's directory, spawning, changing it back.
    static let fallbackLock = NSLock()
}
