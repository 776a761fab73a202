import Dispatch
import Foundation
import KataTripwire

/// The untouched stub, with `Tripwire.call()` first in every public entry point.
///
/// A thumbnail cache shared by an urgent path and a background prefetcher (part 2; see README.md).
///
/// `thumbnail(for:)` is called from urgent code (a `.userInitiated` queue: the user is waiting),
/// `prefetch` by a prefetcher that guesses what will be needed soon. Your task: build it so that
/// an urgent caller never waits for work running at a lower priority.
/// - `thumbnail(for:)` returns the cached thumbnail, or renders it (`render(id)`) on the calling
///   thread, at the caller's priority, and caches it. Never hand the render to another queue and
///   wait for it (a semaphore, a group); never wait for a prefetch's render, even of the same id.
/// - `prefetch` returns at once; it renders the thumbnails not cached yet in the background, at
///   `.utility`, and caches them.
/// - `cachedThumbnail(for:)` returns what is cached, without rendering or waiting for a render.
/// - The cache is shared by all these threads: guard it with a lock that has an owner (`Mutex`,
///   `NSLock`) or a serial queue used with `sync`, held only for the lookup or the insertion.
///
/// Every member below is a stub that compiles, does nothing useful, and never crashes.
public final class ThumbnailStore: @unchecked Sendable {
    // TODO: the render function, the cache and what guards it, a queue for prefetching.

    public init(render: @escaping @Sendable (Int) -> Thumbnail) {
        Tripwire.call()
        // TODO: keep render.
    }

    /// The thumbnail, from the cache or rendered on the calling thread.
    public func thumbnail(for id: Int) -> Thumbnail {
        Tripwire.call()
        return Thumbnail(id: id, pixels: [])  // TODO: the cached thumbnail, or render it here and cache it.
    }

    /// Renders the thumbnails not cached yet, in the background at `.utility`; returns at once.
    public func prefetch(_ ids: [Int]) {
        Tripwire.call()
        // TODO
    }

    /// The cached thumbnail, if any: never renders, never waits for a render.
    public func cachedThumbnail(for id: Int) -> Thumbnail? {
        Tripwire.call()
        return nil  // TODO
    }
}
