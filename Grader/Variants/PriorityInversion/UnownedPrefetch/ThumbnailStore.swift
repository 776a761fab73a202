import Dispatch
import Foundation

/// Grader variant "UnownedPrefetch": the reference solution whose prefetch captures the store
/// `[unowned self]` ("the store outlives its prefetches"). It does not: let go while a prefetch
/// renders, the store is freed, and the prefetch's next use of it traps ("Attempted to read an
/// unowned reference but object … was already deallocated").
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
        background.async { [unowned self] in  // the bug: the store may be freed before this runs on
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
