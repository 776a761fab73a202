import Foundation

/// Loads one source's bytes: asynchronous, so it stays executing until the source delivers.
///
/// A load cannot be stopped once asked for, but the operation can stop waiting for it: cancelled
/// while executing, it finishes at once as `.cancelled` and ignores the bytes that come later.
/// Otherwise a cancelled pipeline would keep its queue's slots busy until every source answered.
public final class LoadOperation: AsyncOperation, DataProviding, StageFailing, @unchecked Sendable {
    private let source: any DataSource
    private let data = StageOutput<Data>()
    private let error = StageOutput<PipelineError>()

    public init(source: any DataSource) {
        self.source = source
        super.init()
        name = "load \(source.name)"
    }

    public var loadedData: Data? { data.value }
    public var failure: PipelineError? { error.value }

    public override func main() {
        guard !isCancelled else {
            error.value = .cancelled
            finish()
            return
        }
        source.load { [self] result in
            if isCancelled { return }  // cancel() already finished the operation
            switch result {
            case .success(let bytes): data.value = bytes
            case .failure(let failure): error.value = .load("\(source.name): \(failure)")
            }
            finish()
        }
    }

    public override func cancel() {
        super.cancel()
        if isExecuting {
            error.value = .cancelled
            finish()
        }
    }
}
