import Foundation
import KataTripwire

/// Applies one filter to the bitmap of its `BitmapProviding` dependency.
///
/// TODO (see README.md): like `DecodeOperation`, but reads `outputBitmap` from the
/// `BitmapProviding` dependency and applies `filter`.
public final class FilterOperation: Operation, BitmapProviding, StageFailing, @unchecked Sendable {
    public let filter: Filter

    public init(_ filter: Filter) {
        Tripwire.call()
        self.filter = filter
        super.init()
    }

    public var outputBitmap: Bitmap? { Tripwire.call(); return nil }  // TODO
    public var failure: PipelineError? { Tripwire.call(); return nil }  // TODO

    public override func main() {
        Tripwire.call()
        // TODO
    }
}
