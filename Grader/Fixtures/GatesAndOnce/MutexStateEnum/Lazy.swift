import Dispatch
import Foundation
import Synchronization

/// A right answer in another style: a state enum in a Mutex; waiters wait on a DispatchGroup that
/// the initializing thread leaves, then look again.
public final class Lazy<Value: Sendable>: Sendable {
    private enum State {
        case idle
        case running(thread: ObjectIdentifier, done: DispatchGroup)
        case done(Value)
    }

    private let initializer: @Sendable () throws -> Value
    private let state = Mutex(State.idle)

    public init(_ initializer: @escaping @Sendable () throws -> Value) {
        self.initializer = initializer
    }

    private enum Step {
        case value(Value)
        case wait(DispatchGroup)
        case run(DispatchGroup)
    }

    public var value: Value {
        get throws {
            let me = ObjectIdentifier(Thread.current)
            while true {
                let step = state.withLock { state -> Step in
                    switch state {
                    case .done(let value): return .value(value)
                    case .running(let thread, let done):
                        precondition(thread != me, "Lazy: re-entrant read of the value being computed")
                        return .wait(done)
                    case .idle:
                        let done = DispatchGroup()
                        done.enter()
                        state = .running(thread: me, done: done)
                        return .run(done)
                    }
                }
                switch step {
                case .value(let value): return value
                case .wait(let done): done.wait()
                case .run(let done):
                    let result = Result { try initializer() }
                    state.withLock { state in
                        if case .success(let value) = result { state = .done(value) } else { state = .idle }
                    }
                    done.leave()
                    return try result.get()
                }
            }
        }
    }
}
