import TimelineTestSupport
import Testing
@testable import TimelineProjections

/// Copies share structure but never observe each other's mutations.
@Suite struct OrderedIndexPersistenceTests {
    @Test(arguments: [2, 4, 7, OrderedIndex<TestRow>.defaultNodeCapacity])
    func copiesNeverChange(capacity: Int) {
        var random = SplitMix64(seed: 0xC0_B1E5 &+ UInt64(capacity))
        var reference = (0..<300).map { random.row(serial: $0) }
        var index = OrderedIndex(reference, nodeCapacity: capacity)
        var snapshots: [(copy: OrderedIndex<TestRow>, contents: [TestRow], step: Int)] = []
        var iterators: [(iterator: OrderedIndex<TestRow>.Iterator, contents: [TestRow])] = []
        var serial = reference.count
        for step in 0..<1_500 {
            if Int.random(in: 0..<25, using: &random) == 0 {
                snapshots.append((index, reference, step))
            }
            if Int.random(in: 0..<100, using: &random) == 0 {
                iterators.append((index.makeIterator(), reference))
            }
            let choice = Int.random(in: 0..<10, using: &random)
            if reference.isEmpty || choice < 4 {
                let position = Int.random(in: 0...reference.count, using: &random)
                let row = random.row(serial: serial)
                serial += 1
                index.insert(row, at: position)
                reference.insert(row, at: position)
            } else if choice < 8 {
                let position = Int.random(in: 0..<reference.count, using: &random)
                index.remove(at: position)
                reference.remove(at: position)
            } else {
                let position = Int.random(in: 0..<reference.count, using: &random)
                index[position].isMarked.toggle()
                reference[position].isMarked.toggle()
            }
            // Now and then a copy is itself mutated: neither the original nor the other
            // copies may see it.
            if !snapshots.isEmpty && Int.random(in: 0..<50, using: &random) == 0 {
                let which = Int.random(in: 0..<snapshots.count, using: &random)
                var diverging = snapshots[which].copy
                if !diverging.isEmpty {
                    diverging.remove(at: Int.random(in: 0..<diverging.count, using: &random))
                }
                diverging.insert(random.row(serial: -1), at: 0)
                #expect(diverging != snapshots[which].copy)
            }
        }
        #expect(snapshots.count > 20)
        expectMatches(index, reference, using: &random, "original")
        for snapshot in snapshots {
            expectMatches(snapshot.copy, snapshot.contents, using: &random, "copy taken at step \(snapshot.step)")
        }
        for var saved in iterators {
            var rest: [TestRow] = []
            while let row = saved.iterator.next() { rest.append(row) }
            #expect(rest == saved.contents, "iterator")
        }
    }

    @Test func mutationsCopyOnlyTheirPath() {
        let rows = (0..<2_000).map { TestRow(key: $0, serial: $0, isMarked: false) }
        var index = OrderedIndex(rows, nodeCapacity: 4)
        let height = index.height
        #expect(height >= 5)

        // A uniquely referenced tree is changed in place.
        let nodesBefore = index.nodeIdentities()
        index[1_234].isMarked = true
        #expect(index.nodeIdentities() == nodesBefore)

        // With a copy alive, an update copies exactly the nodes on its path.
        let copy = index
        index[1_500].isMarked = true
        let nodesAfter = index.nodeIdentities()
        #expect(copy.nodeIdentities() == nodesBefore)
        #expect(nodesAfter.subtracting(nodesBefore).count == index.pathLength(to: 1_500))
        #expect(nodesAfter.count == nodesBefore.count)
        #expect(copy[1_500].isMarked == false && index[1_500].isMarked == true)

        // A second update on the same path finds those nodes unique and copies nothing.
        index[1_501].isMarked = true
        #expect(index.nodeIdentities() == nodesAfter)

        // An insertion and a removal copy at most the path plus the nodes a split or
        // merge creates: far fewer than the tree holds.
        let beforeInsert = index.nodeIdentities()
        let second = index
        index.insert(TestRow(key: 0, serial: 0, isMarked: false), at: 10)
        index.remove(at: 1_900)
        #expect(index.nodeIdentities().subtracting(beforeInsert).count <= 4 * (height + 1))
        #expect(second.nodeIdentities() == beforeInsert)
        let differences = zip(second, copy).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(differences == [1_500, 1_501])
    }

    @Test func copyingIsConstantTime() {
        let index = OrderedIndex((0..<10_000).map { TestRow(key: $0, serial: $0, isMarked: false) }, nodeCapacity: 8)
        let copy = index
        #expect(copy.root === index.root)
        #expect(copy == index)
    }
}

extension OrderedIndex {
    /// How many nodes there are from the root to the one holding the element at `position`.
    func pathLength(to position: Int) -> Int {
        var node = root, offset = position, length = 1
        while !node.isLeaf {
            let (slot, inner) = node.slot(containing: offset)
            if inner == node.children[slot].count { return length }
            node = node.children[slot]
            offset = inner
            length += 1
        }
        return length
    }
}
