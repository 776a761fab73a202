import Dispatch
import Foundation

/// Grader variant "PrefetchItemsKeepStore": the reference solution that keeps its prefetches'
/// work items, to cancel them when it goes away. Each item's closure captures the store strongly
/// and the store keeps the item: a cycle (store → work item → closure → store), so the store is
/// never freed and its `deinit`, which would cancel them, never runs.
public final class ThumbnailStore: @unchecked Sendable {
    private let render: @Sendable (Int) -> Thumbnail
    private let lock = NSLock()
    private var cache: [Int: Thumbnail] = [:]  // guarded by lock
    private let background = DispatchQueue(label: "ThumbnailStore.prefetch", qos: .utility)
    private var inFlight: [DispatchWorkItem] = []  // guarded by lock; cancelled in deinit

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
        let item = DispatchWorkItem { [self] in  // the bug: kept by the store, and it keeps the store
            for id in ids where cachedThumbnail(for: id) == nil {
                _ = store(render(id), for: id)
            }
        }
        lock.withLock { inFlight.append(item) }
        background.async(execute: item)
    }

    deinit {
        for item in inFlight { item.cancel() }
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
