import Foundation

/// Applies one filter to the bitmap of its `BitmapProviding` dependency.
///
/// TODO (see README.md): like `DecodeOperation`, but reads `outputBitmap` from the
/// `BitmapProviding` dependency and applies `filter`.
public final class FilterOperation: Operation, BitmapProviding, StageFailing, @unchecked Sendable {
    public let filter: Filter

    public init(_ filter: Filter) {
        self.filter = filter
        super.init()
    }

    public var outputBitmap: Bitmap? { nil }  // TODO
    public var failure: PipelineError? { nil }  // TODO

    public override func main() {
        // TODO
    }
}
