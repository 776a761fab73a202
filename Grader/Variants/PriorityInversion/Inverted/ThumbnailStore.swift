import Dispatch
import Foundation

/// The classic mistake of part 2, the design the README starts from: one `.utility` queue does
/// everything, and an urgent caller hands its render to it and waits on a semaphore, a primitive
/// without an owner, behind whatever prefetching is queued.
public final class ThumbnailStore: @unchecked Sendable {
    private let render: @Sendable (Int) -> Thumbnail
    private var cache: [Int: Thumbnail] = [:]
    private let queue = DispatchQueue(label: "store", qos: .utility)

    public init(render: @escaping @Sendable (Int) -> Thumbnail) {
        self.render = render
    }

    public func thumbnail(for id: Int) -> Thumbnail {
        let done = DispatchSemaphore(value: 0)
        let result = Box()
        queue.async {
            result.value = self.cache[id] ?? self.renderAndCache(id)
            done.signal()
        }
        done.wait()
        return result.value!
    }

    public func prefetch(_ ids: [Int]) {
        queue.async {
            for id in ids where self.cache[id] == nil { _ = self.renderAndCache(id) }
        }
    }

    public func cachedThumbnail(for id: Int) -> Thumbnail? {
        queue.sync { cache[id] }
    }

    /// Runs on `queue`.
    private func renderAndCache(_ id: Int) -> Thumbnail {
        let thumbnail = render(id)
        cache[id] = thumbnail
        return thumbnail
    }
}

private final class Box: @unchecked Sendable {
    var value: Thumbnail?
}
