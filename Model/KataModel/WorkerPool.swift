import Foundation

/// Real threads reused across logical threads and schedules: starting a thread costs more than a
/// whole small schedule. A worker whose logical thread is stuck in a deadlock never returns here;
/// the pool starts another.
final class WorkerPool: @unchecked Sendable {
    static let shared = WorkerPool()

    private let lock = NSLock()
    private var idle: [Worker] = []

    func run(_ job: @escaping @Sendable () -> Void) {
        lock.lock()
        let worker = idle.popLast()
        lock.unlock()
        if let worker {
            worker.job = job
            worker.go.signal()
        } else {
            let worker = Worker(pool: self, job: job)
            let thread = Thread { worker.loop() }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    fileprivate func park(_ worker: Worker) {
        lock.lock()
        idle.append(worker)
        lock.unlock()
    }
}

private final class Worker: @unchecked Sendable {
    let go = DispatchSemaphore(value: 0)
    /// Written before `go.signal()`, read after `go.wait()`: the semaphore orders the two.
    var job: (@Sendable () -> Void)?
    unowned let pool: WorkerPool

    init(pool: WorkerPool, job: @escaping @Sendable () -> Void) {
        self.pool = pool
        self.job = job
    }

    func loop() {
        while true {
            let work = job
            job = nil
            work?()
            pool.park(self)
            go.wait()
        }
    }
}
