import Foundation
import KataTripwire

/// Decodes the bytes of its `DataProviding` dependency into a bitmap.
///
/// TODO (see README.md): in `main()`, unless cancelled, find the `DataProviding` among
/// `dependencies`, decode its `loadedData` with `Netpbm.decode`, and keep the bitmap or the
/// failure. No data means the stage before failed (pass its `failure` on) or was cancelled.
public final class DecodeOperation: Operation, BitmapProviding, StageFailing, @unchecked Sendable {
    public override init() {
        Tripwire.call()
        super.init()
    }

    public var outputBitmap: Bitmap? { Tripwire.call(); return nil }  // TODO
    public var failure: PipelineError? { Tripwire.call(); return nil }  // TODO

    public override func main() {
        Tripwire.call()
        // TODO
    }
}
