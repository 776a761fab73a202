import Foundation
import Testing
@testable import GraderCore

/// Verify builds the variants in rounds: one build holds one variant of each exercise, so that a
/// round costs one build and one run whatever the number of exercises in it.
@Suite("Verify's variant rounds")
struct VariantRoundsTests {
    @Test("Each exercise's variants fall in successive rounds, Misbehaving in none")
    func rounds() {
        var catalog = VariantCatalog()
        let cap = VariantCatalog.Cap(maxPoints: 1)
        catalog.caps = [
            VariantCatalog.misbehaving: ["A": cap, "B": cap],
            "Unsynchronized": ["A": cap, "B": cap],
            "SubtleRace": ["A": cap],
            "RaceOnly": ["A": cap],
        ]
        #expect(catalog.rounds == [["A": "RaceOnly", "B": "Unsynchronized"], ["A": "SubtleRace"], ["A": "Unsynchronized"]])
    }

    @Test("A round's build names each exercise's variant; its sources come from that variant")
    func roundMode() {
        var mode = BuildMode(variant: "round-1")
        mode.variantsByExercise = ["B": "Unsynchronized", "A": "RaceOnly"]
        #expect(mode.environment(excluding: [])["KATA_VARIANT"] == "A=RaceOnly,B=Unsynchronized")
        #expect(mode.environment(excluding: [])["KATA_SUITES_ONLY"] == "1")
        #expect(mode.sourceFolder(of: "A") == "Grader/Variants/A/RaceOnly")
        #expect(mode.sourceFolder(of: "C") == "Exercises/C")
        #expect(BuildMode(variant: "Obvious").sourceFolder(of: "A") == "Grader/Variants/A/Obvious")
        #expect(BuildMode().environment(excluding: [])["KATA_SUITES_ONLY"] == nil)
        #expect(BuildMode(solutions: true).environment(excluding: [])["KATA_SUITES_ONLY"] == nil)
        #expect(BuildMode(solutions: true).sanitized.environment(excluding: [])["KATA_SUITES_ONLY"] == "1")
    }
}
