import Foundation

/// Decodes the bytes of its `DataProviding` dependency into a bitmap.
public final class DecodeOperation: Operation, BitmapProviding, StageFailing, @unchecked Sendable {
    private let bitmap = StageOutput<Bitmap>()
    private let error = StageOutput<PipelineError>()

    public override init() {
        super.init()
    }

    public var outputBitmap: Bitmap? { bitmap.value }
    public var failure: PipelineError? { error.value }

    public override func main() {
        guard !isCancelled else { error.value = .cancelled; return }
        guard let data = firstDependency(as: DataProviding.self)?.loadedData else {
            error.value = upstreamFailure()
            return
        }
        switch Netpbm.decode(data) {
        case .success(let decoded): bitmap.value = decoded
        case .failure(let failure): error.value = failure
        }
    }
}
