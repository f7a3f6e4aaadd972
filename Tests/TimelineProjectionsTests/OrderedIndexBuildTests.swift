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

    @Test(arguments: [(4, 19), (4, 20), (4, 1_000), (16, 10_000), (85, 100_000), (85, 86), (85, 300)])
    func bulkBuildLeavesRoomInEveryNode(_ capacity: Int, _ size: Int) {
        // Nodes about three quarters full: at least half (the B-tree's invariant) and
        // never full, unless the whole index is one node.
        let rows = (0..<size).map { TestRow(key: $0, serial: $0, isMarked: $0 % 2 == 0) }
        let index = OrderedIndex(rows, nodeCapacity: capacity)
        #expect(index.invariantViolations().isEmpty)
        var pending = index.root.children
        while let node = pending.popLast() {
            #expect(node.elements.count >= capacity / 2)
            #expect(node.elements.count <= max(capacity / 2, (capacity * 3 + 3) / 4))
            pending.append(contentsOf: node.children)
        }
    }

    @Test func insertionsAfterABuildDoNotSplitNodesAtFirst() {
        // One insertion into every leaf of a freshly built index creates no node: full
        // nodes after a build made nearly every insertion split one.
        let capacity = 16
        let rows = (0..<10_000).map { TestRow(key: $0 * 2, serial: $0, isMarked: false) }
        var index = OrderedIndex(rows, nodeCapacity: capacity)
        let nodes = index.nodeIdentities().count
        var leafStarts: [Int] = []
        var position = 0
        func walk(_ node: OrderedIndex<TestRow>.Node) {
            if node.isLeaf {
                leafStarts.append(position)
                position += node.elements.count
                return
            }
            for (i, child) in node.children.enumerated() {
                walk(child)
                if i < node.elements.count { position += 1 }
            }
        }
        walk(index.root)
        for (offset, start) in leafStarts.enumerated().reversed() {
            index.insert(TestRow(key: start * 2 + 1, serial: 100_000 + offset, isMarked: false), at: start + 1)
        }
        #expect(index.nodeIdentities().count == nodes)
        #expect(index.count == 10_000 + leafStarts.count)
        #expect(index.invariantViolations().isEmpty)
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
