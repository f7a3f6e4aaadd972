import Testing
import TimelineTestSupport
@testable import TimelineCore

/// A log's record offsets read back as they were added, in four bytes each up to 4 GiB
/// and whole past it, however they were added and joined.
@Suite("A log's record offsets")
struct RecordOffsetsTests {
    static let limit = Int(UInt32.max)

    /// Offsets added in runs, each run below or past 4 GiB, then joined behind a prefix
    /// (as a log opened from a resume point reads its prefix last).
    @Test(arguments: 0..<20)
    func offsetsReadBackAsAdded(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        func run(from start: Int) -> [Int] {
            var offset = start
            return (0..<rng.below(50)).map { _ in
                offset += 1 + rng.below(rng.chance(10) ? Self.limit : 200)
                return offset
            }
        }
        var expected: [Int] = [], offsets = RecordOffsets()
        for _ in 0..<rng.below(6) {
            let added = run(from: expected.last ?? 0)
            offsets.append(contentsOf: added)
            expected += added
        }
        let prefix = rng.chance(50) ? [] : run(from: rng.chance(50) ? 0 : Self.limit - 100)
        let joined = RecordOffsets(prefix) + offsets
        for (offsets, expected) in [(offsets, expected), (joined, prefix + expected)] {
            #expect(offsets.count == expected.count)
            #expect((0..<offsets.count).map { offsets[$0] } == expected)
        }
    }

    @Test func anOffsetPastFourGiBKeepsEveryOffsetWhole() {
        var offsets = RecordOffsets([0, 10, Self.limit])
        offsets.append(contentsOf: [Self.limit + 1, 1 << 40])
        #expect((0..<offsets.count).map { offsets[$0] } == [0, 10, Self.limit, Self.limit + 1, 1 << 40])
        let joined = RecordOffsets([5]) + offsets + RecordOffsets([(1 << 40) + 7])
        #expect((0..<joined.count).map { joined[$0] } == [5, 0, 10, Self.limit, Self.limit + 1, 1 << 40, (1 << 40) + 7])
    }
}
