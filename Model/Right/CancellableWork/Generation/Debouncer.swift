import Dispatch
import Foundation

/// Model-mode right implementation in another style: no `DispatchWorkItem` to cancel, a
/// generation number instead. Each `schedule` (and `cancel`) moves the generation on under a lock;
/// a delayed block runs its action only if its generation is still the last one. The block
/// captures the debouncer weakly (`[weak self]`), the first thing an iOS developer reaches for.
public final class Debouncer: @unchecked Sendable {
    private let delay: DispatchTimeInterval
    private let queue: DispatchQueue
    private let lock = NSLock()
    private var generation = 0

    public init(delay: DispatchTimeInterval, queue: DispatchQueue) {
        self.delay = delay
        self.queue = queue
    }

    public func schedule(_ action: @escaping @Sendable () -> Void) {
        let mine = nextGeneration()
        queue.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self, self.isLast(mine) else { return }
            action()
        }
    }

    public func cancel() {
        _ = nextGeneration()
    }

    private func nextGeneration() -> Int {
        lock.lock()
        defer { lock.unlock() }
        generation += 1
        return generation
    }

    private func isLast(_ mine: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return generation == mine
    }
}
