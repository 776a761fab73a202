import Foundation

/// Applies one filter to the bitmap of its `BitmapProviding` dependency.
public final class FilterOperation: Operation, BitmapProviding, StageFailing, @unchecked Sendable {
    public let filter: Filter
    private let bitmap = StageOutput<Bitmap>()
    private let error = StageOutput<PipelineError>()

    public init(_ filter: Filter) {
        self.filter = filter
        super.init()
    }

    public var outputBitmap: Bitmap? { bitmap.value }
    public var failure: PipelineError? { error.value }

    public override func main() {
        guard !isCancelled else { error.value = .cancelled; return }
        guard let input = firstDependency(as: BitmapProviding.self)?.outputBitmap else {
            error.value = upstreamFailure()
            return
        }
        bitmap.value = filter.apply(to: input)
    }
}
