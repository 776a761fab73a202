import Foundation
import KataTripwire

/// Decodes Netpbm images: P2 (plain gray), P3 (plain RGB), P5 (raw gray), P6 (raw RGB).
///
/// TODO (see README.md for the format): read the magic number, width, height and maxval
/// (skipping whitespace and `#` comments), then the samples, scaled from 0...maxval to 0...255
/// with rounding. Trust nothing in the header: bound the sizes, check every sample, and report
/// a short raster as `.decode("…")`, never crash.
public enum Netpbm {
    /// The largest image accepted, in pixels: a header claiming more is an error.
    public static let maxPixels = 1 << 24

    public static func decode(_ data: Data) -> Result<Bitmap, PipelineError> {
        Tripwire.call()
        return .failure(.decode("Netpbm.decode is not written yet"))  // TODO
    }
}
