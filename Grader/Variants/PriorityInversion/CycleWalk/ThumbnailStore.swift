import Dispatch
import Foundation

/// A thumbnail cache shared by an urgent path (`thumbnail(for:)`, called from `.userInitiated`
/// code) and a background prefetcher (`prefetch`), built so that an urgent caller never waits for
/// work that runs at a lower priority (see README.md).
///
/// - The cache is guarded by a lock with an owner, held only for a dictionary lookup or insertion,
///   never while rendering: an urgent caller that finds it taken waits microseconds, and Apple
///   platforms raise the owner to the waiter's priority meanwhile. (`Mutex` is as right; see the
///   README for why this reference uses `NSLock`.)
/// - An urgent miss renders on the caller's own thread, at the caller's priority, even if a
///   prefetch of the same thumbnail is under way at `.utility`: it never waits for that render.
/// - Prefetching runs on a private serial queue of QoS `.utility`: an asynchronous block takes the
///   queue's QoS, whoever submitted it.
public final class ThumbnailStore: @unchecked Sendable {
    private let render: @Sendable (Int) -> Thumbnail
    private let lock = NSLock()
    private var cache: [Int: Thumbnail] = [:]  // guarded by lock
    private let background = DispatchQueue(label: "ThumbnailStore.prefetch", qos: .utility)

    public init(render: @escaping @Sendable (Int) -> Thumbnail) {
        self.render = render
    }

    /// The thumbnail, from the cache or rendered on the calling thread.
    public func thumbnail(for id: Int) -> Thumbnail {
        if let hit = cachedThumbnail(for: id) { return hit }
        let fresh = render(id)
        return store(fresh, for: id)
    }

    /// Renders the thumbnails not cached yet, in the background at `.utility`; returns at once.
    public func prefetch(_ ids: [Int]) {
        background.async { [self] in
            for id in ids where cachedThumbnail(for: id) == nil {
                _ = store(render(id), for: id)
            }
        }
    }

    /// The cached thumbnail, if any: never renders, never waits for a render.
    public func cachedThumbnail(for id: Int) -> Thumbnail? {
        lock.withLock { cache[id] }
    }

    /// Keeps the first thumbnail stored for `id` (another caller may have rendered it meanwhile).
    private func store(_ thumbnail: Thumbnail, for id: Int) -> Thumbnail {
        lock.withLock {
            if let first = cache[id] { return first }
            cache[id] = thumbnail
            return thumbnail
        }
    }
}
