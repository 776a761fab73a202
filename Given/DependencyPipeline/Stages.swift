import Foundation

/// A stage that produced bytes: what a `DecodeOperation` reads from its dependency.
public protocol DataProviding: AnyObject { var loadedData: Data? { get } }

/// A stage that produced a bitmap: what a `FilterOperation` reads from its dependency.
public protocol BitmapProviding: AnyObject { var outputBitmap: Bitmap? { get } }

/// A stage that can fail: later stages pass its failure on instead of doing work.
public protocol StageFailing: AnyObject { var failure: PipelineError? { get } }

public enum PipelineError: Error, Equatable, Sendable {
    case load(String), decode(String), cancelled
    /// The names of the operations on the cycle, in order: each depends on the next, and the
    /// last depends on the first.
    case cycle([String])
}
