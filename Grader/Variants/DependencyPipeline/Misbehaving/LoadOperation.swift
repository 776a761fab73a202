import Foundation
import KataTripwire

/// Loads one source's bytes: asynchronous, so it stays executing until the source delivers.
///
/// TODO (see README.md): in `main()`, unless cancelled, call `source.load`; keep the bytes (or a
/// `.load` failure) where other threads can read them safely, then `finish()`. Cancelled while
/// the load is in flight, stop waiting: finish at once as `.cancelled` and ignore what comes later.
public final class LoadOperation: AsyncOperation, DataProviding, StageFailing, @unchecked Sendable {
    public init(source: any DataSource) {
        Tripwire.call()
        super.init()
        // TODO: keep the source; name the operation ("load <source name>").
    }

    public var loadedData: Data? { Tripwire.call(); return nil }  // TODO
    public var failure: PipelineError? { Tripwire.call(); return nil }  // TODO

    public override func main() {
        Tripwire.call()
        finish()  // TODO: load first.
    }

    public override func cancel() {
        Tripwire.call()
        super.cancel()  // TODO: if executing, give up waiting for the source.
    }
}
