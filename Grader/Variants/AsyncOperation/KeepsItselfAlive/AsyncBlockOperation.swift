import Foundation

/// A ready-made `AsyncOperation`: `work` receives the operation and calls `finish()` when done.
///
/// Variant "KeepsItselfAlive" for `grader verify`: the reference solution whose
/// `AsyncBlockOperation` binds its work to itself in a stored closure that captures `self`
/// strongly: a cycle operation → closure → operation, so no operation is ever freed.
public final class AsyncBlockOperation: AsyncOperation, @unchecked Sendable {
    private let work: @Sendable (AsyncBlockOperation) -> Void
    /// The fault: a closure the operation keeps, capturing the operation.
    private lazy var run: () -> Void = { self.work(self) }

    public init(_ work: @escaping @Sendable (AsyncBlockOperation) -> Void) {
        self.work = work
        super.init()
        _ = run
    }

    public override func main() {
        run()
    }
}
