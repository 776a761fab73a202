import Dispatch
import Foundation

public enum Access: Sendable, Equatable {
    case granted
    case refused
}

/// A right answer in another style: the decision guarded by a private serial DispatchQueue
/// (`sync`), the work on a second queue created suspended and resumed once.
public final class SessionQueue: @unchecked Sendable {
    private final class Decision: @unchecked Sendable {
        private let guardQueue = DispatchQueue(label: "kata.decision")
        private var access: Access?
        var current: Access? { guardQueue.sync { access } }
        func decide(_ value: Access) -> Bool {
            guardQueue.sync {
                if access != nil { return false }
                access = value
                return true
            }
        }
    }

    private let work: DispatchQueue
    private let decision = Decision()

    public init(label: String) {
        work = DispatchQueue(label: label)
        work.suspend()
    }

    public func async(_ job: @escaping @Sendable (Access) -> Void) {
        work.async { [decision] in
            guard let access = decision.current else { preconditionFailure("ran before a decision") }
            job(access)
        }
    }

    public func open(granted: Bool) {
        if decision.decide(granted ? .granted : .refused) { work.resume() }
    }

    deinit {
        if decision.decide(.refused) { work.resume() }
    }
}
