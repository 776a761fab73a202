import Foundation
import KataTripwire

/// A ready-made `AsyncOperation`: `work` receives the operation and calls `finish()` when done.
public final class AsyncBlockOperation: AsyncOperation, @unchecked Sendable {
    // TODO: keep `work`.

    public init(_ work: @escaping @Sendable (AsyncBlockOperation) -> Void) {
        Tripwire.call()
        super.init()
    }

    public override func main() {
        Tripwire.call()
        // TODO: run the work, handing it this operation.
    }
}
