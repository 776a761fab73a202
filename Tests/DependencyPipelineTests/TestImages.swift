import DependencyPipeline
import Foundation
import KataTestSupport
import Testing

/// Netpbm files written by the checks themselves, and an independent reference for the filters.
enum TestImages {
    /// Encodes `samples` (already in 0...maxval) in the given form; `comment` goes after the magic.
    static func encode(_ magic: String, width: Int, height: Int, maxval: Int, samples: [Int], comment: String? = nil) -> Data {
        var header = magic + "\n"
        if let comment { header += "# \(comment)\n" }
        header += "\(width) \(height)\n\(maxval)\n"
        var data = Data(header.utf8)
        if magic == "P2" || magic == "P3" {
            let rows = stride(from: 0, to: samples.count, by: 12).map { samples[$0..<min($0 + 12, samples.count)].map(String.init).joined(separator: " ") }
            data.append(Data((rows.joined(separator: "\n") + "\n").utf8))
        } else if maxval > 255 {
            for sample in samples { data.append(contentsOf: [UInt8(sample >> 8), UInt8(sample & 0xff)]) }
        } else {
            data.append(contentsOf: samples.map { UInt8($0) })
        }
        return data
    }

    /// The 8-bit value a sample of `maxval` scales to (rounded to nearest).
    static func scaled(_ sample: Int, maxval: Int) -> UInt8 { UInt8((sample * 255 + maxval / 2) / maxval) }

    static func bitmap(_ width: Int, _ height: Int, _ channels: Int, _ pixels: [UInt8]) -> Bitmap {
        Bitmap(width: width, height: height, channels: channels, pixels: pixels)!
    }

    /// A random image with 8-bit samples, and its file in a random form.
    static func random(width: Int, height: Int, color: Bool, plain: Bool) -> (Bitmap, Data) {
        let channels = color ? 3 : 1
        let pixels = (0..<(width * height * channels)).map { _ in UInt8.random(in: 0...255) }
        let magic = color ? (plain ? "P3" : "P6") : (plain ? "P2" : "P5")
        return (bitmap(width, height, channels, pixels), encode(magic, width: width, height: height, maxval: 255, samples: pixels.map(Int.init)))
    }
}

/// The filters, written plainly for the checks to compare against.
enum ReferenceFilter {
    static func apply(_ filter: Filter, to image: Bitmap) -> Bitmap {
        switch filter {
        case .invert:
            return TestImages.bitmap(image.width, image.height, image.channels, image.pixels.map { 255 - $0 })
        case .grayscale:
            return luminance(image)
        case .threshold(let level):
            let gray = luminance(image)
            return TestImages.bitmap(gray.width, gray.height, 1, gray.pixels.map { $0 < level ? 0 : 255 })
        case .boxBlur(let radius):
            guard radius > 0 else { return image }
            var out: [UInt8] = []
            for y in 0..<image.height {
                for x in 0..<image.width {
                    for channel in 0..<image.channels {
                        var total = 0, count = 0
                        for dy in -radius...radius {
                            for dx in -radius...radius {
                                let (nx, ny) = (x + dx, y + dy)
                                guard nx >= 0, ny >= 0, nx < image.width, ny < image.height else { continue }
                                total += Int(image.sample(x: nx, y: ny, channel: channel))
                                count += 1
                            }
                        }
                        out.append(UInt8((total + count / 2) / count))
                    }
                }
            }
            return TestImages.bitmap(image.width, image.height, image.channels, out)
        }
    }

    static func luminance(_ image: Bitmap) -> Bitmap {
        if image.channels == 1 { return image }
        let gray = stride(from: 0, to: image.pixels.count, by: 3).map { i -> UInt8 in
            let weighted = 299 * Int(image.pixels[i]) + 587 * Int(image.pixels[i + 1]) + 114 * Int(image.pixels[i + 2])
            return UInt8((weighted + 500) / 1000)
        }
        return TestImages.bitmap(image.width, image.height, 1, gray)
    }
}

/// A finished stage that hands fixed bytes to a DecodeOperation.
final class GivenBytes: Operation, DataProviding, @unchecked Sendable {
    let loadedData: Data?
    init(_ data: Data) { loadedData = data }
}

/// A finished stage that hands a fixed bitmap to a FilterOperation.
final class GivenBitmap: Operation, BitmapProviding, @unchecked Sendable {
    let outputBitmap: Bitmap?
    init(_ bitmap: Bitmap) { outputBitmap = bitmap }
}

/// Runs one synchronous stage by hand after a finished input stage; returns the stage.
func runStage<Stage: Operation>(_ stage: Stage, after input: Operation) -> Stage {
    input.start()
    stage.addDependency(input)
    stage.start()
    return stage
}

struct TestLoadError: Error, CustomStringConvertible {
    let name: String
    var description: String { "no such file: \(name)" }
}

/// A data source the checks control: a delay, a failure, or a hold until released; it counts
/// loads and loads in flight.
final class TestSource: DataSource, @unchecked Sendable {
    private let storedName: String
    /// Runs whenever the pipeline reads `name` (while `process` builds its chains, for one).
    let onNameRead = Locked<(@Sendable () -> Void)?>(nil)
    var name: String {
        onNameRead.current?()
        return storedName
    }
    private let bytes: Data?
    private let delay: Double
    private let release: DispatchSemaphore?
    let meter: ConcurrencyMeter
    let loads: Locked<Int>
    /// How many loads of this source delivered their result.
    let deliveries = Locked(0)
    /// How many of those deliveries the load's callback has returned from.
    let answers = Locked(0)
    /// The OperationQueue `load` was called on (the pipeline's), if it was called on one.
    let queueSeen = Locked<OperationQueue?>(nil)

    init(_ name: String, bytes: Data?, delay: Double = 0, holdUntilReleased: Bool = false,
         meter: ConcurrencyMeter = ConcurrencyMeter(), loads: Locked<Int> = Locked(0)) {
        self.storedName = name
        self.bytes = bytes
        self.delay = delay
        self.release = holdUntilReleased ? DispatchSemaphore(value: 0) : nil
        self.meter = meter
        self.loads = loads
    }

    func load(completion: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        loads.withLock { $0 += 1 }
        if let queue = OperationQueue.current { queueSeen.withLock { $0 = queue } }
        meter.enter()
        let (bytes, name, delay, release, meter, deliveries, answers) = (bytes, storedName, delay, release, meter, deliveries, answers)
        Thread {
            if let release { _ = release.wait(timeout: .now() + 5) } else if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            meter.leave()
            deliveries.withLock { $0 += 1 }
            completion(bytes.map { .success($0) } ?? .failure(TestLoadError(name: name)))
            answers.withLock { $0 += 1 }
        }.start()
    }

    func releaseLoad() { release?.signal() }
}

/// Collects the pipeline's completion calls.
final class PipelineProbe: @unchecked Sendable {
    let recorder = CallRecorder<[Result<Bitmap, PipelineError>]>()

    var completion: @Sendable ([Result<Bitmap, PipelineError>]) -> Void { { [recorder] in recorder.record($0) } }

    /// Waits for the completion; gives up early when `sources` show that the pipeline's queue can
    /// no longer call it (see `Hopeless.pipelineStuck`).
    @discardableResult
    func waitForCall(seconds: Double = 5, in place: String, pipeline: ImagePipeline, sources: [TestSource]) -> Bool {
        Hopeless.waitUntil(seconds: seconds, limit: 4 * seconds, in: place, waitingFor: "the pipeline's completion",
                           hint: "One operation that depends on the last stage of every chain should call the completion; cancelAll() must not cancel it.",
                           progress: { Hopeless.progress(pipeline, sources: sources) },
                           { !recorder.calls.isEmpty }, unless: { Hopeless.pipelineStuck(pipeline, sources: sources) })
    }

    var calls: [[Result<Bitmap, PipelineError>]] { recorder.calls }
    var results: [Result<Bitmap, PipelineError>] { recorder.first ?? [] }
}

func describe(_ result: Result<Bitmap, PipelineError>) -> String {
    switch result {
    case .success(let bitmap): ".success(\(bitmap))"
    case .failure(let error): ".failure(\(error))"
    }
}
