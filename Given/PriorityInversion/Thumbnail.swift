/// A rendered thumbnail: what `ThumbnailStore` caches. Rendering one is the slow part.
public struct Thumbnail: Sendable, Equatable {
    public let id: Int
    public let pixels: [UInt8]

    public init(id: Int, pixels: [UInt8]) {
        self.id = id
        self.pixels = pixels
    }
}
