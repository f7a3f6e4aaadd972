/// SplitMix64 (Steele, Lea, Flood 2014): a small, fast, seeded random number generator,
/// so that property tests, the stress writer and the benchmark are repeatable: the same
/// seed gives the same sequence on every machine.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A random number in `0..<count` (`count` must be positive).
    public mutating func below(_ count: Int) -> Int { Int(next() % UInt64(count)) }

    /// True with probability `percent` / 100.
    public mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    /// An index into `weights`, each chosen with probability proportional to its weight.
    public mutating func weighted(_ weights: [Int], total: Int) -> Int {
        var pick = below(total)
        for (index, weight) in weights.enumerated() {
            if pick < weight { return index }
            pick -= weight
        }
        return weights.count - 1
    }
}
