import Dispatch
import Synchronization

/// The reference solution without its lock: the cache is a plain dictionary shared by every
/// thread. It renders on the caller's thread and never waits, by accident.
public final class ThumbnailStore: @unchecked Sendable {
    private let render: @Sendable (Int) -> Thumbnail
    nonisolated(unsafe) private var cacheStorage: [Int: Thumbnail] = [:]  // BUG: no lock
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
        cacheStorage[id]
    }

    /// Keeps the first thumbnail stored for `id` (another caller may have rendered it meanwhile).
    private func store(_ thumbnail: Thumbnail, for id: Int) -> Thumbnail {
        if let first = cacheStorage[id] { return first }
        cacheStorage[id] = thumbnail
        return thumbnail
    }
}
