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

/// Emptying a working array keeps its storage and releases every element, whether it
/// holds a few elements (removed from the end) or many.
@Suite struct ArrayEmptyingTests {
    final class Element {}

    struct Weak {
        weak var element: Element?
    }

    @Test(arguments: [0, 1, 2, 4, 5, 17])
    func emptiesAndKeepsTheStorage(count: Int) {
        var array: [Element] = []
        array.reserveCapacity(32)
        for _ in 0..<count { array.append(Element()) }
        let capacity = array.capacity
        let watched = array.map { Weak(element: $0) }
        array.removeAllKeepingStorage()
        #expect(array.isEmpty)
        #expect(array.capacity == capacity)
        #expect(watched.allSatisfy { $0.element == nil })
        array.append(Element())
        #expect(array.count == 1 && array.capacity == capacity)
    }
}
