import TimelineTestSupport
import Testing
@testable import TimelineProjections

/// Bulk construction, equality and collection behaviour.
@Suite struct OrderedIndexBuildTests {
    static let capacities = [2, 3, 4, 7, 16, OrderedIndex<TestRow>.defaultNodeCapacity]

    static func sizes(capacity: Int) -> [Int] {
        let twoFullLevels = capacity * (capacity + 1) + capacity
        return [0, 1, 2, capacity - 1, capacity, capacity + 1, 2 * capacity, 2 * capacity + 1, 2 * capacity + 2,
                twoFullLevels, twoFullLevels + 1, 1_000, 2_345]
    }

    @Test(arguments: capacities)
    func bulkBuildThenMutate(capacity: Int) {
        var random = SplitMix64(seed: 0xB0_11D0 &+ UInt64(capacity))
        var sizes = Self.sizes(capacity: capacity)
        for _ in 0..<6 { sizes.append(Int.random(in: 0..<3_000, using: &random)) }
        for size in sizes where size >= 0 {
            var reference = (0..<size).map { random.row(serial: $0) }
            var index = OrderedIndex(reference, nodeCapacity: capacity)
            expectMatches(index, reference, using: &random, "capacity \(capacity), built from \(size)")
            // Bulk-built nodes are full: the first insertions split them.
            var serial = size
            for step in 0..<40 {
                if reference.isEmpty || step % 3 != 2 {
                    let position = Int.random(in: 0...reference.count, using: &random)
                    let row = random.row(serial: serial)
                    serial += 1
                    index.insert(row, at: position)
                    reference.insert(row, at: position)
                } else {
                    let position = Int.random(in: 0..<reference.count, using: &random)
                    index.remove(at: position)
                    reference.remove(at: position)
                }
            }
            expectMatches(index, reference, using: &random, "capacity \(capacity), built from \(size), mutated")
        }
    }

    @Test func bulkBuildFillsNodes() {
        // 19 elements with capacity 4: four full leaves and a root holding the three
        // separators between them.
        let rows = (0..<19).map { TestRow(key: $0, serial: $0, isMarked: $0 % 2 == 0) }
        let index = OrderedIndex(rows, nodeCapacity: 4)
        #expect(index.height == 2)
        #expect(index.root.elements.count == 3)
        #expect(index.root.children.allSatisfy { $0.elements.count == 4 })
        // One more element needs a fifth leaf; the root then has five children.
        let bigger = OrderedIndex(rows + [TestRow(key: 19, serial: 19, isMarked: false)], nodeCapacity: 4)
        #expect(bigger.height == 2)
        #expect(bigger.root.children.count == 5)
        #expect(bigger.invariantViolations().isEmpty)
    }

    @Test func buildsFromSequencesWithoutContiguousStorage() {
        var random = SplitMix64(seed: 42)
        let reference = (0..<777).map { random.row(serial: $0) }
        let lazy = reference.lazy.map { $0 }
        #expect(lazy.withContiguousStorageIfAvailable { _ in true } == nil)
        let index = OrderedIndex(lazy, nodeCapacity: 5)
        expectMatches(index, reference, using: &random, "lazy sequence")
        let copy = OrderedIndex(index, nodeCapacity: 3)
        expectMatches(copy, reference, using: &random, "from another index")
        let withDefaultCapacity = OrderedIndex(reference)
        expectMatches(withDefaultCapacity, reference, using: &random, "default capacity")
    }

    @Test func equalityIsElementwise() {
        var random = SplitMix64(seed: 7)
        let reference = (0..<500).map { random.row(serial: $0) }
        let built = OrderedIndex(reference, nodeCapacity: 4)
        var grown = OrderedIndex<TestRow>(nodeCapacity: 6)
        for row in reference { grown.append(row) }
        #expect(built.height != grown.height || built.root.elements.count != grown.root.elements.count)
        #expect(built == grown)
        #expect(OrderedIndex<TestRow>() == OrderedIndex<TestRow>(nodeCapacity: 3))
        var changed = grown
        changed[321].serial += 1
        #expect(changed != grown)
        changed[321].serial -= 1
        #expect(changed == grown)
        changed.remove(at: 499)
        #expect(changed != grown)
        #expect(built != OrderedIndex<TestRow>())
    }

    @Test func collectionConformance() {
        let rows = (0..<300).map { TestRow(key: $0, serial: $0, isMarked: $0 % 5 == 0) }
        var index = OrderedIndex(rows, nodeCapacity: 4)
        #expect(index.startIndex == 0 && index.endIndex == 300)
        #expect(index.indices == 0..<300)
        #expect(index.first == rows.first && index.last == rows.last)
        #expect(Array(index.reversed()) == rows.reversed())
        #expect(Array(index[100..<110]) == Array(rows[100..<110]))
        #expect(index.firstIndex { $0.key == 123 } == 123)
        #expect(index.reduce(0) { $0 + $1.key } == rows.reduce(0) { $0 + $1.key })
        #expect(OrderedIndex<TestRow>().first == nil)
        index.removeAll()
        #expect(index.isEmpty && index.count == 0 && Array(index) == [])
        #expect(index.invariantViolations().isEmpty)
    }

    @Test func sendableWhenElementsAre() async {
        let index = OrderedIndex((0..<1_000).map { TestRow(key: $0, serial: $0, isMarked: false) })
        let sum = await Task.detached { index.reduce(0) { $0 + $1.key } }.value
        #expect(sum == 499_500)
    }
}
