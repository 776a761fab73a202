/// What a model check calls from inside a schedule: start threads, wait for them, mark switch
/// points between calls, and state the property.
public enum Model {
    /// Starts a logical thread named as the learner would say it ("producer", "reader 2").
    @discardableResult
    public static func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) -> LogicalThread {
        guard let (scheduler, _) = Scheduler.current else {
            preconditionFailure("Model.spawn is for code running under Scheduler.run")
        }
        return scheduler.spawn(name, body)
    }

    /// Waits until each thread has finished.
    public static func join(_ threads: LogicalThread..., file: StaticString = #fileID, line: UInt = #line) {
        join(threads, file: file, line: line)
    }

    public static func join(_ threads: [LogicalThread], file: StaticString = #fileID, line: UInt = #line) {
        guard let (scheduler, _) = Scheduler.current else { return }
        let site = Site(file, line)
        scheduler.harness {
            for thread in threads {
                scheduler.step("join \(thread.name)", at: site)
                _ = scheduler.block(Wait(
                    what: Bilingual("\(thread.name) to finish", zh: "\(thread.zhName) 结束"), site: site,
                    until: { thread.isFinished }))
            }
        }
    }

    /// Waits until every other thread of the schedule has finished (the blocks a queue still
    /// holds, say); a deadlock if some never can.
    public static func joinAll(file: StaticString = #fileID, line: UInt = #line) {
        guard let (scheduler, me) = Scheduler.current else { return }
        let site = Site(file, line)
        scheduler.harness {
            scheduler.step("waits for every other thread", at: site)
            _ = scheduler.block(Wait(
                what: Bilingual("every other thread to finish", zh: "其他所有线程结束"), site: site,
                until: { scheduler.threads.allSatisfy { $0 === me || $0.isFinished } }))
        }
    }

    /// A row in the trace that is not a switch point ("make() runs").
    public static func note(_ text: String) {
        Scheduler.current?.scheduler.note(text)
    }

    /// A switch point between two calls of the code under test.
    public static func point(_ label: String, file: StaticString = #fileID, line: UInt = #line) {
        Scheduler.current?.scheduler.step(label, at: Site(file, line))
    }

    /// States a property; a false one fails the schedule (it still runs to its end).
    public static func check(_ holds: Bool, _ en: @autoclosure () -> String, zh: @autoclosure () -> String) {
        guard !holds, let (scheduler, _) = Scheduler.current else { return }
        scheduler.fail(Bilingual(en(), zh: zh()))
    }

    /// The current virtual time, in seconds since the schedule started.
    public static var now: Double { Scheduler.current?.scheduler.now ?? 0 }
}
