#if KATA_MODEL
import Dispatch
import KataModel

/// Model twin of `DispatchQueue`: serial or concurrent, `sync`, `async`, barriers, `asyncAfter`
/// in virtual time, queue-specific values. A global queue is concurrent and ignores barriers, as
/// libdispatch does. Each `async` block runs as a logical thread of its own, named after the
/// queue ("queue 'dictionary' block 2").
public final class DispatchQueue: @unchecked Sendable {
    public typealias Attributes = Dispatch.DispatchQueue.Attributes
    public typealias AutoreleaseFrequency = Dispatch.DispatchQueue.AutoreleaseFrequency

    let model: ModelQueue
    public let label: String

    public init(
        label: String, qos: DispatchQoS = .unspecified, attributes: Attributes = [],
        autoreleaseFrequency: AutoreleaseFrequency = .inherit, target: DispatchQueue? = nil
    ) {
        self.label = label
        model = ModelQueue(label: label, concurrent: attributes.contains(.concurrent))
    }

    private init(global qos: DispatchQoS.QoSClass) {
        label = "global"
        model = ModelQueue(label: "global", concurrent: true, global: true)
    }

    public static func global(qos: DispatchQoS.QoSClass = .default) -> DispatchQueue {
        DispatchQueue(global: qos)
    }

    public func sync<T>(flags: DispatchWorkItemFlags = [], file: StaticString = #fileID, line: UInt = #line, execute work: () throws -> T) rethrows -> T {
        try model.sync(barrier: flags.contains(.barrier), at: Site(file, line), work)
    }

    public func sync(execute item: DispatchWorkItem, file: StaticString = #fileID, line: UInt = #line) {
        model.sync(barrier: false, at: Site(file, line)) { item.model.perform(at: Site(file, line)) }
    }

    public func async(
        group: DispatchGroup? = nil, qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [],
        file: StaticString = #fileID, line: UInt = #line, execute work: @escaping () -> Void
    ) {
        let site = Site(file, line)
        let closure = ModelClosure(work)
        group?.model.enter(at: site)
        let groupModel = group?.model
        model.async(barrier: flags.contains(.barrier), at: site, { closure.run() }, done: { groupModel?.leave(at: site) })
    }

    public func async(execute item: DispatchWorkItem, file: StaticString = #fileID, line: UInt = #line) {
        let site = Site(file, line)
        model.async(barrier: false, at: site) { item.model.perform(at: site) }
    }

    public func async(group: DispatchGroup, execute item: DispatchWorkItem, file: StaticString = #fileID, line: UInt = #line) {
        let site = Site(file, line)
        group.model.enter(at: site)
        let groupModel = group.model
        model.async(barrier: false, at: site, { item.model.perform(at: site) }, done: { groupModel.leave(at: site) })
    }

    public func asyncAfter(
        deadline: DispatchTime, qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [],
        file: StaticString = #fileID, line: UInt = #line, execute work: @escaping () -> Void
    ) {
        let closure = ModelClosure(work)
        model.async(barrier: flags.contains(.barrier), after: deadline.modelDelay, at: Site(file, line)) { closure.run() }
    }

    public func asyncAfter(deadline: DispatchTime, execute item: DispatchWorkItem, file: StaticString = #fileID, line: UInt = #line) {
        let site = Site(file, line)
        model.async(barrier: false, after: deadline.modelDelay, at: site) { item.model.perform(at: site) }
    }

    public func suspend(file: StaticString = #fileID, line: UInt = #line) {
        model.suspend(at: Site(file, line))
    }

    public func resume(file: StaticString = #fileID, line: UInt = #line) {
        model.resume(at: Site(file, line))
    }

    public func setSpecific<T>(key: DispatchSpecificKey<T>, value: T?) {
        model.setSpecific(ObjectIdentifier(key), value)
    }

    public static func getSpecific<T>(key: DispatchSpecificKey<T>) -> T? {
        ModelQueue.specific(ObjectIdentifier(key)) as? T
    }

    public static func concurrentPerform(iterations: Int, execute work: (Int) -> Void) {
        withoutActuallyEscaping(work) { work in
            let closure = ModelIteration(work)
            let threads = (0..<iterations).map { index in
                Model.spawn("concurrentPerform \(index)") { closure.run(index) }
            }
            Model.join(threads)
        }
    }
}

/// The body of `concurrentPerform`, which runs on threads the caller waits for.
private struct ModelIteration: @unchecked Sendable {
    let run: (Int) -> Void
    init(_ run: @escaping (Int) -> Void) { self.run = run }
}
#endif
