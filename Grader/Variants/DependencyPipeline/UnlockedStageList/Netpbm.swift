import Foundation

/// Decodes Netpbm images: P2 (plain gray), P3 (plain RGB), P5 (raw gray), P6 (raw RGB).
///
/// Samples are scaled from 0...maxval to 0...255, rounding to nearest. Nothing in the header is
/// trusted: sizes are bounded, every sample is checked against maxval, and a raster shorter
/// than the header promises is an error, never a crash.
public enum Netpbm {
    /// The largest image accepted, in pixels: a header claiming more is an error.
    public static let maxPixels = 1 << 24

    public static func decode(_ data: Data) -> Result<Bitmap, PipelineError> {
        var reader = HeaderReader(bytes: [UInt8](data))
        do {
            let magic = try reader.magic()
            let channels = magic == "P2" || magic == "P5" ? 1 : 3
            let width = try reader.number(named: "width")
            let height = try reader.number(named: "height")
            let maxval = try reader.number(named: "maxval")
            guard width > 0, height > 0 else { throw PipelineError.decode("width and height must be positive, got \(width)×\(height)") }
            guard width <= maxPixels, height <= maxPixels, width * height <= maxPixels else {
                throw PipelineError.decode("\(width)×\(height) is larger than the \(maxPixels) pixels accepted")
            }
            guard (1...65_535).contains(maxval) else { throw PipelineError.decode("maxval must be 1...65535, got \(maxval)") }
            let count = width * height * channels
            let samples = magic == "P2" || magic == "P3"
                ? try reader.plainSamples(count: count, maxval: maxval)
                : try reader.rawSamples(count: count, maxval: maxval)
            let pixels = samples.map { UInt8((Int($0) * 255 + maxval / 2) / maxval) }
            guard let bitmap = Bitmap(width: width, height: height, channels: channels, pixels: pixels) else {
                throw PipelineError.decode("inconsistent image")
            }
            return .success(bitmap)
        } catch let error as PipelineError {
            return .failure(error)
        } catch {
            return .failure(.decode("\(error)"))
        }
    }
}

/// Reads a Netpbm header and raster from bytes, with comments (`#` to the end of the line).
private struct HeaderReader {
    let bytes: [UInt8]
    var offset = 0

    mutating func magic() throws -> String {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "P") else { throw PipelineError.decode("not a Netpbm file (no P magic number)") }
        let magic = "P" + String(UnicodeScalar(bytes[1]))
        guard ["P2", "P3", "P5", "P6"].contains(magic) else { throw PipelineError.decode("unsupported format \(magic): only P2, P3, P5 and P6") }
        offset = 2
        return magic
    }

    mutating func skipSpaceAndComments() {
        while offset < bytes.count {
            if bytes[offset] == UInt8(ascii: "#") {
                while offset < bytes.count && bytes[offset] != UInt8(ascii: "\n") { offset += 1 }
            } else if isSpace(bytes[offset]) {
                offset += 1
            } else {
                return
            }
        }
    }

    mutating func number(named name: String) throws -> Int {
        skipSpaceAndComments()
        var value = 0
        var digits = 0
        while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) {
            value = value * 10 + Int(bytes[offset] - UInt8(ascii: "0"))
            digits += 1
            offset += 1
            if value > 1 << 32 { throw PipelineError.decode("\(name) is too large") }
        }
        guard digits > 0 else {
            throw PipelineError.decode(offset < bytes.count ? "expected a number for \(name), found '\(Character(UnicodeScalar(bytes[offset])))'" : "the file ends before \(name)")
        }
        if offset < bytes.count, !isSpace(bytes[offset]), bytes[offset] != UInt8(ascii: "#") {
            throw PipelineError.decode("expected a number for \(name), found '\(Character(UnicodeScalar(bytes[offset])))'")
        }
        return value
    }

    mutating func plainSamples(count: Int, maxval: Int) throws -> [UInt16] {
        var samples: [UInt16] = []
        samples.reserveCapacity(count)
        for index in 0..<count {
            let value = try number(named: "sample \(index + 1) of \(count)")
            guard value <= maxval else { throw PipelineError.decode("sample \(index + 1) is \(value), above maxval \(maxval)") }
            samples.append(UInt16(value))
        }
        return samples
    }

    mutating func rawSamples(count: Int, maxval: Int) throws -> [UInt16] {
        // Exactly one whitespace byte separates maxval from the raster.
        guard offset < bytes.count, isSpace(bytes[offset]) else { throw PipelineError.decode("the file ends before the raster") }
        offset += 1
        let width = maxval > 255 ? 2 : 1
        let needed = count * width
        guard bytes.count - offset >= needed else {
            throw PipelineError.decode("truncated raster: \(bytes.count - offset) bytes, the header promises \(needed)")
        }
        var samples: [UInt16] = []
        samples.reserveCapacity(count)
        for index in 0..<count {
            let position = offset + index * width
            let value = width == 2 ? UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1]) : UInt16(bytes[position])
            guard Int(value) <= maxval else { throw PipelineError.decode("sample \(index + 1) is \(value), above maxval \(maxval)") }
            samples.append(value)
        }
        return samples
    }

    private func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
    }
}
