/// A seeded generator whose sequence is fixed by its algorithm (SplitMix64, Steele et al. 2014),
/// so that a seed printed on one machine replays the same schedule on any other. The standard
/// library's generator cannot be seeded.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<bound, without the platform-dependent paths of `Int.random(in:using:)`.
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0)
        // The high bits: with a small bound, the low bits of consecutive outputs repeat patterns
        // (seed 0 gives 1, 0, 1, 0, … for bound 2 for its first twelve draws).
        return Int((next() >> 32) % UInt64(bound))
    }
}
