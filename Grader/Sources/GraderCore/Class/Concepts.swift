/// The concept each exercise practises (DESIGN.md's concept map), for the class summary: a check
/// many students fail points the instructor at the concept to teach again. Every exercise of the
/// rubric has one (a grader test checks it).
enum Concepts {
    static let byExercise: [String: (en: String, zh: String)] = [
        "ThreadSafeDictionary": ("shared mutable state: locks, serial queues, concurrent queue + barrier",
                                 "共享可变状态：锁、串行队列、并发队列加 barrier"),
        "AsyncOperation": ("asynchronous Operation: isExecuting/isFinished, KVO announcements, cancellation in start()",
                           "异步 Operation：isExecuting/isFinished、KVO 通知、start() 里的取消"),
        "CancellableWork": ("DispatchWorkItem cancellation, notify, DispatchGroup enter/leave balance",
                            "DispatchWorkItem 的取消、notify、DispatchGroup 的 enter/leave 配对"),
        "ThrottledDownloader": ("DispatchSemaphore as a limit, DispatchGroup completion, never blocking the caller",
                                "用 DispatchSemaphore 限流、DispatchGroup 汇总完成、不阻塞调用方"),
        "DependencyPipeline": ("Operation dependencies, passing data between operations, cancellation, cycles",
                               "Operation 依赖、在操作之间传递数据、取消、依赖环"),
        "Deadlocks": ("deadlock: lock order, re-locking a held lock, sync onto the current queue",
                      "死锁：加锁顺序、重复获取已持有的锁、sync 到当前队列"),
        "BoundedBuffer": ("condition variables: NSCondition, while-not-if, signal vs broadcast, lost wake-ups",
                          "条件变量：NSCondition、用 while 而不是 if、signal 与 broadcast、丢失的唤醒"),
        "StallMonitor": ("stall detection by ping, DispatchSource timers and their life cycle",
                         "用 ping 检测卡顿、DispatchSource 定时器及其生命周期"),
        "QueueOrdering": ("serial/concurrent × sync/async: which orders are possible, which code deadlocks",
                          "串行/并发 × 同步/异步：哪些顺序可能出现、哪段代码会死锁"),
        "AsyncBridge": ("bridging callbacks and Operations to async/await: continuations, actor reentrancy",
                        "把回调和 Operation 桥接到 async/await：continuation、actor 重入"),
        "PriorityInversion": ("priority inversion and QoS", "优先级反转与 QoS"),
        "RunLoopThread": ("run loops: a thread's loop, input sources, timers, modes", "RunLoop：线程的循环、输入源、定时器、模式"),
        "GatesAndOnce": ("suspend/resume, OperationQueue.isSuspended, run-once initialisation",
                         "挂起/恢复、OperationQueue.isSuspended、只执行一次的初始化"),
        "MainHop": ("back to the main queue, a bounded wait, messages over a pipe, signal sources",
                    "回到主队列、有上限的等待、通过管道传递消息、信号源"),
        "FanOutFanIn": ("fan-out and fan-in: concurrentPerform, DispatchWorkItem.notify chains, operation graphs, BlockOperation",
                        "分发与汇合：concurrentPerform、DispatchWorkItem.notify 链、操作图、BlockOperation"),
    ]

    /// The concept of `exercise` in the current language ("" when the map lacks it).
    static func of(_ exercise: String) -> String {
        guard let concept = byExercise[exercise] else { return "" }
        return L(concept.en, concept.zh)
    }
}
