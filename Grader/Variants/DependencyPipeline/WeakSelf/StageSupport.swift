import Foundation

/// A value that one thread writes before the operation finishes and others read after it.
final class StageOutput<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    var value: Value? {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}

extension Operation {
    /// The first dependency of the given kind: where a stage reads its input.
    func firstDependency<T>(as type: T.Type) -> T? {
        dependencies.lazy.compactMap { $0 as? T }.first
    }

    /// Why there is no input: the failure of the stage before, or `.cancelled` when that stage
    /// was cancelled (a cancelled operation finishes without output, and its dependents may
    /// even run before it had its own input).
    func upstreamFailure() -> PipelineError {
        firstDependency(as: StageFailing.self)?.failure ?? .cancelled
    }
}
