import TimelineTestSupport
import Testing
@testable import TimelineProjections

/// Random operation sequences checked against a plain array after every step.
@Suite struct OrderedIndexRandomTests {
    /// Small capacities make deep trees from a few hundred elements, so splits, merges
    /// and rotations happen at every level; the default capacity covers the real layout.
    static let capacities = [2, 3, 4, 5, 8, OrderedIndex<TestRow>.defaultNodeCapacity]

    @Test(arguments: capacities)
    func positionalInsertRemoveUpdate(capacity: Int) {
        var random = SplitMix64(seed: 0x5EED_0001 &+ UInt64(capacity))
        var index = OrderedIndex<TestRow>(nodeCapacity: capacity)
        var reference: [TestRow] = []
        var serial = 0
        var largest = 0
        for step in 0..<600 {
            // Grow to about 150 elements, then shrink to about 30.
            let growing = step < 350
            let choice = Int.random(in: 0..<10, using: &random)
            let operation: String
            if reference.isEmpty || choice < (growing ? 6 : 2) {
                let position = Int.random(in: 0...reference.count, using: &random)
                let row = random.row(serial: serial)
                serial += 1
                index.insert(row, at: position)
                reference.insert(row, at: position)
                operation = "insert \(row) at \(position)"
            } else if choice < (growing ? 8 : 9) {
                let position = Int.random(in: 0..<reference.count, using: &random)
                let removed = index.remove(at: position)
                let expected = reference.remove(at: position)
                #expect(removed == expected, "step \(step): removed element")
                operation = "remove at \(position)"
            } else if choice == 8 || step % 2 == 0 {
                let position = Int.random(in: 0..<reference.count, using: &random)
                let row = random.row(serial: serial)
                serial += 1
                let old = index.update(at: position, with: row)
                #expect(old == reference[position], "step \(step): replaced element")
                reference[position] = row
                operation = "update at \(position)"
            } else {
                let position = Int.random(in: 0..<reference.count, using: &random)
                index[position].isMarked.toggle()
                reference[position].isMarked.toggle()
                operation = "toggle mark at \(position)"
            }
            expectMatches(index, reference, using: &random, "capacity \(capacity), step \(step), \(operation)")
            largest = max(largest, reference.count)
        }
        #expect(largest > 100, "the run should build a multi-level tree")
    }

    /// Keeps the elements sorted by key the way a projection does: positions come from
    /// `partitionIndex`, checked against `firstIndex(where:)` on the sorted array.
    @Test(arguments: capacities)
    func sortedOperationsWithPartitionIndex(capacity: Int) {
        var random = SplitMix64(seed: 0x5EED_0002 &+ UInt64(capacity))
        var index = OrderedIndex<TestRow>(nodeCapacity: capacity)
        var reference: [TestRow] = []
        let keys = 60  // Few keys, so runs of equal keys span nodes.
        for step in 0..<500 {
            let choice = Int.random(in: 0..<10, using: &random)
            if reference.isEmpty || choice < 6 {
                let row = random.row(serial: step, keys: keys)
                let position = index.partitionIndex { $0.key > row.key }
                #expect(position == (reference.firstIndex { $0.key > row.key } ?? reference.count), "step \(step)")
                index.insert(row, at: position)
                reference.insert(row, at: position)
            } else if choice < 9 {
                let position = Int.random(in: 0..<reference.count, using: &random)
                // The rank of an existing element, found by its key and serial.
                let row = reference[position]
                let rank = index.partitionIndex { ($0.key, $0.serial) >= (row.key, row.serial) }
                #expect(rank == position, "step \(step): rank of \(row)")
                index.remove(at: position)
                reference.remove(at: position)
            } else {
                let position = Int.random(in: 0..<reference.count, using: &random)
                index[position].isMarked.toggle()
                reference[position].isMarked.toggle()
            }
            #expect(zip(reference, reference.dropFirst()).allSatisfy { $0.key <= $1.key })
            for key in [-1, keys, Int.random(in: 0..<keys, using: &random), Int.random(in: 0..<keys, using: &random)] {
                #expect(index.partitionIndex { $0.key >= key } == (reference.firstIndex { $0.key >= key } ?? reference.count), "step \(step): >= \(key)")
                #expect(index.partitionIndex { $0.key > key } == (reference.firstIndex { $0.key > key } ?? reference.count), "step \(step): > \(key)")
            }
            #expect(index.partitionIndex { _ in true } == 0)
            #expect(index.partitionIndex { _ in false } == reference.count)
            expectMatches(index, reference, using: &random, "capacity \(capacity), step \(step)")
        }
    }

    @Test func partitionIndexRethrows() {
        struct Stop: Error {}
        let index = OrderedIndex((0..<100).map { TestRow(key: $0, serial: $0, isMarked: false) }, nodeCapacity: 4)
        #expect(throws: Stop.self) {
            _ = try index.partitionIndex { row in
                if row.key == 50 { throw Stop() }
                return row.key > 50
            }
        }
    }
}
