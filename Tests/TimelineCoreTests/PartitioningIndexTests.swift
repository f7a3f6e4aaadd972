import Testing
import TimelineTestSupport
@testable import TimelineCore

/// The binary search the projections share finds the first element of the second
/// partition, as a linear scan does, in collections of any length.
@Suite struct PartitioningIndexTests {
    @Test func findsTheFirstElementOfTheSecondPartition() {
        var random = SplitMix64(seed: 0xB15EC7)
        for length in 0..<40 {
            let sorted = (0..<length).map { _ in random.below(20) }.sorted()
            for key in -1...21 {
                #expect(sorted.partitioningIndex { $0 >= key } == (sorted.firstIndex { $0 >= key } ?? sorted.count))
                #expect(sorted.partitioningIndex { $0 > key } == (sorted.firstIndex { $0 > key } ?? sorted.count))
            }
        }
        // A slice keeps its own indices.
        let slice = [1, 3, 5, 7, 9][2...]
        #expect(slice.partitioningIndex { $0 >= 7 } == 3)
        #expect(slice.partitioningIndex { $0 >= 100 } == slice.endIndex)
    }
}
