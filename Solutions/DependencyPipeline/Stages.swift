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
