import TimelineCore
import TimelineTestSupport
import Testing
@testable import TimelineProjections

/// A walk records its way down (``OrderedIndex/Path``), and an insertion, removal or update
/// at the position it found takes each internal node's child from it: the steps must be
/// those that summing the children's counts finds, and the result that of the same
/// change by position.
@Suite struct OrderedIndexPathTests {
    @Test(arguments: [2, 3, 4, 8, OrderedIndex<TestRow>.defaultNodeCapacity])
    func changesAlongAWalkMatchChangesByPosition(capacity: Int) {
        var random = SplitMix64(seed: 0x9A7_0001 &+ UInt64(capacity))
        var index = OrderedIndex<TestRow>(nodeCapacity: capacity)
        var reference: [TestRow] = []
        var deepest = 0
        var kept: [OrderedIndex<TestRow>] = []
        for step in 0..<500 {
            let choice = Int.random(in: 0..<10, using: &random)
            // Now and then a copy shares the nodes, as a batch's snapshot or a front end's
            // rows do: the change copies them on its way down the path.
            if Int.random(in: 0..<5, using: &random) == 0 { kept = Array((kept + [index]).suffix(3)) }
            // A few steps' worth of room now and then: the rest of the way is summed.
            let room = Int.random(in: 0..<4, using: &random) == 0 ? 1 : OrderedIndex<TestRow>.Path.capacity
            withUnsafeTemporaryAllocation(of: OrderedIndex<TestRow>.PathStep.self, capacity: room) { steps in
                if reference.isEmpty || choice < 5 {
                    let row = random.row(serial: step, keys: 80)
                    let (position, path) = walk(to: row, in: index, recording: steps)
                    #expect(position == (reference.firstIndex { ($0.key, $0.serial) >= (row.key, row.serial) } ?? reference.count))
                    expectSteps(path, of: index, at: position, room: room, "step \(step)")
                    deepest = max(deepest, path.steps.count)
                    index.insert(row, at: position, along: path)
                    reference.insert(row, at: position)
                } else {
                    let existing = reference[Int.random(in: 0..<reference.count, using: &random)]
                    let (position, path) = walk(to: existing, in: index, recording: steps)
                    #expect(reference[position] == existing)
                    expectSteps(path, of: index, at: position, room: room, "step \(step)")
                    if choice < 8 {
                        #expect(index.remove(at: position, along: path) == existing)
                        reference.remove(at: position)
                    } else {
                        var marked = existing
                        marked.isMarked.toggle()
                        #expect(index.update(at: position, with: marked, along: path) == existing)
                        reference[position] = marked
                    }
                }
            }
            expectMatches(index, reference, using: &random, "capacity \(capacity), step \(step)")
        }
        #expect(deepest >= (capacity <= 4 ? 3 : 1), "the walks should cross internal nodes")
        #expect(!kept.isEmpty)
    }

    /// A step whose child is not in its node is not used: the child is found by summing.
    @Test func aStepOutsideItsNodeIsNotUsed() {
        var random = SplitMix64(seed: 0x9A7_0002)
        let rows = (0..<300).map { TestRow(key: $0, serial: $0, isMarked: $0 % 3 == 0) }
        var index = OrderedIndex(rows, nodeCapacity: 4)
        var reference = rows
        let steps = [OrderedIndex<TestRow>.PathStep](repeating: .init(child: 1_000, before: 0), count: 8)
            + [.init(child: -1, before: 0)]
        steps.withUnsafeBufferPointer { steps in
            let path = OrderedIndex<TestRow>.Path(steps: steps)
            for round in 0..<60 {
                let position = Int.random(in: 0..<reference.count, using: &random)
                switch round % 3 {
                case 0:
                    let row = TestRow(key: reference[position].key, serial: 1_000 + round, isMarked: round % 2 == 0)
                    index.insert(row, at: position, along: path)
                    reference.insert(row, at: position)
                case 1:
                    #expect(index.remove(at: position, along: path) == reference.remove(at: position))
                default:
                    var row = reference[position]
                    row.isMarked.toggle()
                    #expect(index.update(at: position, with: row, along: path) == reference[position])
                    reference[position] = row
                }
            }
        }
        expectMatches(index, reference, using: &random, "bogus steps")
    }

    /// Walks to the first row not before `row`, by key then serial, recording its way down.
    private func walk(to row: TestRow, in index: OrderedIndex<TestRow>,
                      recording steps: UnsafeMutableBufferPointer<OrderedIndex<TestRow>.PathStep>)
        -> (Int, OrderedIndex<TestRow>.Path) {
        index.partitionIndex(splittingNodes: { elements in
            elements.partitioningIndex { ($0.key, $0.serial) >= (row.key, row.serial) }
        }, recording: steps) { position, _, path in (position, path) }
    }

    /// Expects the steps that descending to `position` by summing counts takes, as many
    /// as there was room for.
    private func expectSteps(_ path: OrderedIndex<TestRow>.Path, of index: OrderedIndex<TestRow>, at position: Int,
                             room: Int, _ context: String) {
        var expected: [(child: Int, before: Int)] = []
        var node = index.root
        var offset = position
        while !node.isLeaf {
            let (child, within) = node.slot(containing: offset)
            expected.append((child, offset - within))
            node = node.children[child]
            offset = within
        }
        let recorded = path.steps.map { ($0.child, $0.before) }
        #expect(recorded.count == min(room, expected.count), "\(context)")
        #expect(zip(recorded, expected).allSatisfy { $0.0 == $1.child && $0.1 == $1.before }, "\(context): \(recorded) \(expected)")
    }
}
