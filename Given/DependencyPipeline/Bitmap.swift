/// Given, finished: an image in memory, 8 bits per sample, rows top to bottom.
public struct Bitmap: Equatable, Sendable, CustomStringConvertible {
    public let width: Int
    public let height: Int
    /// 1 for grayscale, 3 for RGB.
    public let channels: Int
    /// `width * height * channels` samples, row by row, channels interleaved (R, G, B, R, …).
    public let pixels: [UInt8]

    /// Nil unless the sizes are positive, `channels` is 1 or 3, and `pixels` has exactly
    /// `width * height * channels` samples.
    public init?(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        guard width > 0, height > 0, channels == 1 || channels == 3,
              pixels.count == width * height * channels else { return nil }
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    /// The sample of channel `channel` at column `x`, row `y`.
    public func sample(x: Int, y: Int, channel: Int = 0) -> UInt8 {
        pixels[(y * width + x) * channels + channel]
    }

    public var description: String { "Bitmap(\(width)×\(height), \(channels == 1 ? "gray" : "RGB"))" }
}
