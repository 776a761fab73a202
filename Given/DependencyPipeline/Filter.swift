/// Given, finished: the pixel operations of the pipeline. `apply(to:)` is yours to write, in
/// `Filter.swift` of the exercise.
public enum Filter: Sendable, Equatable {
    /// Every sample becomes 255 minus itself.
    case invert
    /// RGB becomes one gray channel: (299 R + 587 G + 114 B + 500) / 1000. Gray stays gray.
    case grayscale
    /// Grayscale first, then 255 where the sample is at least the threshold, else 0.
    case threshold(UInt8)
    /// Each sample becomes the rounded mean of the samples of its channel in the square of
    /// side 2 × radius + 1 around it, counting only pixels inside the image. Radius 0 (or
    /// less) changes nothing.
    case boxBlur(radius: Int)
}
