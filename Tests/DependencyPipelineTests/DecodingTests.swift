import DependencyPipeline
import Foundation
import KataTestSupport
import Testing

/// The stages' own work, one stage at a time: decoding every Netpbm form and the pixel filters.
@Suite("Decoding and filtering", .exitIsAFailure)
struct DecodingTests {
    @Test("DecodeOperation decodes P2, P3, P5 and P6 files, with comments, maxval other than 255, and odd widths")
    func decodesEveryNetpbmForm() {
        let gray = Array(0..<15)  // 5×3, maxval 15
        let rgb = (0..<18).map { ($0 * 37) % 256 }  // 3×2 RGB
        let wide = (0..<15).map { $0 * 66 }  // 5×3, maxval 1000: two bytes per sample in P5
        let colour = (0..<27).map { ($0 * 11) % 256 }  // 3×3 RGB
        let cases: [(String, Data, Bitmap)] = [
            ("P2, maxval 15, 5 wide", TestImages.encode("P2", width: 5, height: 3, maxval: 15, samples: gray, comment: "plain gray"),
             TestImages.bitmap(5, 3, 1, gray.map { TestImages.scaled($0, maxval: 15) })),
            ("P3, 3 wide", TestImages.encode("P3", width: 3, height: 2, maxval: 255, samples: rgb, comment: "plain colour"),
             TestImages.bitmap(3, 2, 3, rgb.map { UInt8($0) })),
            ("P5, maxval 1000 (16-bit samples)", TestImages.encode("P5", width: 5, height: 3, maxval: 1000, samples: wide),
             TestImages.bitmap(5, 3, 1, wide.map { TestImages.scaled($0, maxval: 1000) })),
            ("P6, 3 wide", TestImages.encode("P6", width: 3, height: 3, maxval: 255, samples: colour, comment: "raw colour"),
             TestImages.bitmap(3, 3, 3, colour.map { UInt8($0) })),
            ("P2 with a comment between width and height", Data("P2\n2 # width\n# a whole comment line\n1\n255\n7 200\n".utf8),
             TestImages.bitmap(2, 1, 1, [7, 200])),
        ]
        for (name, file, expected) in cases {
            let stage = runStage(DecodeOperation(), after: GivenBytes(file))
            #expect(stage.outputBitmap == expected,
                    "Decoding \(name) gave \(stage.outputBitmap.map { "\($0) \($0.pixels.prefix(6))…" } ?? "no bitmap (failure: \(String(describing: stage.failure)))"); expected \(expected) \(expected.pixels.prefix(6))…. Samples scale from 0...maxval to 0...255 as (v × 255 + maxval / 2) / maxval.")
        }
    }

    @Test("Corrupt, truncated or unsupported input fails with .decode and a message, never a crash")
    func rejectsCorruptInput() async {
        let ending = await #expect(processExitsWith: .failure, IsolatedCheck.exitedEarly) {
            IsolatedCheck.begin(in: "decoding corrupt files")
            DecodingTests.decodeCorruptFiles()
            IsolatedCheck.finish()
        }
        IsolatedCheck.explain(
            ending, in: "decoding corrupt files",
            crashHint: "A crash here usually means the decoder trusted the header: it read past the end of the data, or allocated what a huge width × height asked for. Check sizes and lengths before you read.")
    }

    static func decodeCorruptFiles() {
        let cases: [(String, Data)] = [
            ("an empty file", Data()),
            ("an unsupported P7 file", Data("P7\n1 1\n255\n".utf8) + Data([0])),
            ("a P5 raster shorter than the header says", Data("P5\n4 4\n255\n".utf8) + Data([1, 2, 3])),
            ("a P6 header claiming 100000×100000 pixels", Data("P6\n100000 100000\n255\n".utf8) + Data(repeating: 7, count: 30)),
            ("a P3 header claiming 100000×100000 pixels", Data("P3\n100000 100000\n255\n1 2 3\n".utf8)),
            ("a P5 sample above maxval", Data("P5\n2 1\n100\n".utf8) + Data([50, 200])),
            ("a P2 file with too few samples", Data("P2\n2 2\n15\n1 2 3\n".utf8)),
            ("a P2 file with a word for its height", Data("P2\n2 x\n15\n1 2 3 4\n".utf8)),
            ("a P2 sample above maxval", Data("P2\n1 1\n15\n16\n".utf8)),
            ("maxval 0", Data("P5\n1 1\n0\n".utf8) + Data([0])),
            ("maxval 70000", Data("P5\n1 1\n70000\n".utf8) + Data([0, 0])),
            ("a width of 0", Data("P6\n0 5\n255\n".utf8)),
            ("a width of 99999999999999999999", Data("P6\n99999999999999999999 1\n255\n".utf8) + Data(repeating: 1, count: 3)),
            ("a header that ends early", Data("P3\n2".utf8)),
        ]
        var problems: [String] = []
        for (name, file) in cases {
            let stage = runStage(DecodeOperation(), after: GivenBytes(file))
            switch stage.failure {
            case .decode(let message) where !message.isEmpty && stage.outputBitmap == nil: continue
            default: problems.append("\(name): output \(stage.outputBitmap.map(String.init(describing:)) ?? "none"), failure \(stage.failure.map(String.init(describing:)) ?? "none")")
            }
        }
        #expect(problems.isEmpty, "\(problems.count) of \(cases.count) corrupt files did not fail with .decode(\"<what is wrong>\"); first: \(problems.first ?? ""). Decoding must check what the header claims against the data it has.")
    }

    @Test("FilterOperation applies invert, grayscale, threshold and box blur correctly, also on odd sizes and at the edges")
    func filtersAreRight() {
        let colour = TestImages.random(width: 5, height: 3, color: true, plain: false).0
        let gray = TestImages.random(width: 7, height: 4, color: false, plain: false).0
        let filters: [Filter] = [.invert, .grayscale, .threshold(128), .boxBlur(radius: 1), .boxBlur(radius: 2), .boxBlur(radius: 0)]
        var problems: [String] = []
        for image in [colour, gray] {
            for filter in filters {
                let stage = runStage(FilterOperation(filter), after: GivenBitmap(image))
                let expected = ReferenceFilter.apply(filter, to: image)
                if stage.outputBitmap != expected {
                    problems.append("\(filter) on \(image): got \(stage.outputBitmap.map { "\($0) \($0.pixels.prefix(4))…" } ?? "no bitmap"), expected \(expected) \(expected.pixels.prefix(4))…")
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.count) of 12 filter results were wrong; first: \(problems.first ?? ""). See the doc comments on Filter for each rule.")
    }
}
