extension Filter {
    /// The filtered image; see the doc comment of each case in the given `Filter` for its rule.
    public func apply(to bitmap: Bitmap) -> Bitmap {
        switch self {
        case .invert:
            return Bitmap(width: bitmap.width, height: bitmap.height, channels: bitmap.channels, pixels: bitmap.pixels.map { 255 - $0 })!
        case .grayscale:
            return Self.gray(bitmap)
        case .threshold(let level):
            let gray = Self.gray(bitmap)
            return Bitmap(width: gray.width, height: gray.height, channels: 1, pixels: gray.pixels.map { $0 >= level ? 255 : 0 })!
        case .boxBlur(let radius):
            return radius <= 0 ? bitmap : Self.blur(bitmap, radius: radius)
        }
    }

    private static func gray(_ bitmap: Bitmap) -> Bitmap {
        guard bitmap.channels == 3 else { return bitmap }
        var pixels = [UInt8](repeating: 0, count: bitmap.width * bitmap.height)
        for index in pixels.indices {
            let r = Int(bitmap.pixels[index * 3]), g = Int(bitmap.pixels[index * 3 + 1]), b = Int(bitmap.pixels[index * 3 + 2])
            pixels[index] = UInt8((299 * r + 587 * g + 114 * b + 500) / 1000)
        }
        return Bitmap(width: bitmap.width, height: bitmap.height, channels: 1, pixels: pixels)!
    }

    private static func blur(_ bitmap: Bitmap, radius: Int) -> Bitmap {
        let (width, height, channels) = (bitmap.width, bitmap.height, bitmap.channels)
        var pixels = [UInt8](repeating: 0, count: bitmap.pixels.count)
        for y in 0..<height {
            for x in 0..<width {
                let rows = max(0, y - radius)...min(height - 1, y + radius)
                let columns = max(0, x - radius)...min(width - 1, x + radius)
                let count = rows.count * columns.count
                for channel in 0..<channels {
                    var sum = 0
                    for row in rows {
                        for column in columns { sum += Int(bitmap.pixels[(row * width + column) * channels + channel]) }
                    }
                    pixels[(y * width + x) * channels + channel] = UInt8((sum + count / 2) / count)
                }
            }
        }
        return Bitmap(width: width, height: height, channels: channels, pixels: pixels)!
    }
}
