import Foundation

/// A ready-made `AsyncOperation`: `work` receives the operation and calls `finish()` when done.
public final class AsyncBlockOperation: AsyncOperation, @unchecked Sendable {
    private let work: @Sendable (AsyncBlockOperation) -> Void

    public init(_ work: @escaping @Sendable (AsyncBlockOperation) -> Void) {
        self.work = work
        super.init()
    }

    public override func main() {
        work(self)
    }
}
