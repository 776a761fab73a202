import Foundation

#if !canImport(ObjectiveC)
/// How the checks see, on Linux, each `didChangeValue(forKey:)` an operation sends for
/// "isFinished" and "isExecuting".
///
/// swift-corelibs-foundation has no KVO and declares `willChangeValue(forKey:)`/
/// `didChangeValue(forKey:)` in an extension of Operation, where no subclass can override them.
/// But its `didChangeValue(forKey:)` calls `Operation.observeValue(forKeyPath:ofObject:)`, which
/// reads the operation's own `isFinished` (for "isFinished"/"finished") or `isExecuting` (for
/// "isExecuting"/"executing") first thing, through the class's vtable
/// (Sources/Foundation/Operation.swift, `observeValue`: `if !op.isFinished` and
/// `let isExecuting = op.isExecuting`). A subclass that overrides those getters is therefore
/// called once per `did`, from one call site inside Foundation. The getter compares its caller's
/// return address with that site, learned once per process by sending each `did` to an operation
/// that reports "not finished, not executing" (so Foundation changes nothing). Reads from anywhere
/// else (the learner's code, the checks, `cancel()`, a queue) come from other addresses.
/// `willChangeValue(forKey:)` does nothing there, so no check on Linux can see a `will`.
enum DidChangeSite {
    /// Where the two reads inside `observeValue` return to: the frame `depth` of the getter's
    /// stack (counted from `returnAddresses()`), and its address for each key. Nil when they
    /// cannot be told apart from an ordinary read (then the checks say they could not observe).
    struct Sites: Sendable {
        let depth: Int
        let isFinished: UInt
        let isExecuting: UInt
    }

    /// How many frames each read looks at: the getter, this function, and a few in between.
    static let frames = 6

    /// The `backtrace(3)` of glibc, found with `dlsym`: Swift's Glibc module does not import
    /// `<execinfo.h>`. Asking for a few frames keeps it cheap (tens of microseconds).
    private typealias Backtrace = @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>, Int32) -> Int32
    private static let backtrace: Backtrace? = dlsym(dlopen(nil, RTLD_NOW), "backtrace").map { unsafeBitCast($0, to: Backtrace.self) }

    /// The innermost `frames` return addresses of the calling thread, this function's first.
    @inline(never)
    static func returnAddresses() -> [UInt] {
        guard let backtrace else { return [] }
        let slots = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: frames)
        defer { slots.deallocate() }
        let count = Int(backtrace(slots, Int32(frames)))
        return (0..<max(0, count)).map { UInt(bitPattern: slots[$0]) }
    }

    /// From a getter's stacks while it handled a `did` for each key and while it was read
    /// directly: the first frame where the `did` stacks differ from the direct read's is the
    /// getter's caller. Nil unless that frame tells all three apart.
    static func sites(didFinished: [UInt], didExecuting: [UInt], ordinary: [UInt]) -> Sites? {
        let count = min(didFinished.count, didExecuting.count, ordinary.count)
        guard let depth = (0..<count).first(where: { didFinished[$0] != ordinary[$0] }) else { return nil }
        let sites = Sites(depth: depth, isFinished: didFinished[depth], isExecuting: didExecuting[depth])
        guard sites.isFinished != sites.isExecuting, didExecuting[depth] != ordinary[depth],
              didFinished[..<depth] == ordinary[..<depth] else { return nil }
        return sites
    }

    /// True if `stack` (from `returnAddresses()` in the getter) was called from `site`.
    static func isCall(_ stack: [UInt], at depth: Int, from site: UInt) -> Bool {
        depth < stack.count && stack[depth] == site
    }
}
#endif
