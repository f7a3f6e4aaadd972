import TimelineTestSupport
import Testing
@testable import TimelineProjections

/// Node storage stays close to the number of elements stored.
@Suite struct OrderedIndexStorageTests {
    /// Reserved element slots over all nodes, divided by the element count.
    static func reservedRatio(_ index: OrderedIndex<TestRow>) -> Double {
        var reserved = 0
        var pending = [index.root]
        while let node = pending.popLast() {
            reserved += node.storageCapacity
            pending.append(contentsOf: node.children)
        }
        return Double(reserved) / Double(index.count)
    }

    /// A tree of one leaf (a small view) and one of many.
    @Test(arguments: [10, 10_000])
    func bulkBuiltLeavesHaveRoomForAFewMore(count: Int) {
        let rows = (0..<count).map { TestRow(key: $0, serial: $0, isMarked: false) }
        let index = OrderedIndex(rows)
        let capacity = OrderedIndex<TestRow>.defaultNodeCapacity
        var pending = [index.root], leaves = 0
        while let node = pending.popLast() {
            pending.append(contentsOf: node.children)
            guard node.isLeaf else { continue }
            leaves += 1
            let room = Swift.min(4, capacity - node.elements.count)
            #expect(node.storageCapacity >= node.elementCount + room, "a leaf without room for its first insertions")
        }
        guard count > capacity else {
            #expect(leaves == 1)
            return
        }
        #expect(leaves > 100)
        // Leaves about three quarters full hold four slots more; built internal nodes reserve a full node.
        #expect(Self.reservedRatio(index) < 1.15, "reserved \(Self.reservedRatio(index)) slots per element")
    }

    @Test func randomInsertionsKeepStorageProportional() {
        var random = SplitMix64(seed: 99)
        var index = OrderedIndex<TestRow>()
        for serial in 0..<6_000 {
            index.insert(random.row(serial: serial), at: Int.random(in: 0...index.count, using: &random))
        }
        // Nodes are half to completely full. Reserving a full node each would give about
        // 1.45 slots per element here; growing storage by a quarter gives about 1.15.
        let ratio = Self.reservedRatio(index)
        #expect(ratio < 1.3, "reserved \(ratio) slots per element")
    }

    @Test func appendingKeepsStorageProportional() {
        var index = OrderedIndex<TestRow>()
        for serial in 0..<6_000 {
            index.append(TestRow(key: serial, serial: serial, isMarked: false))
        }
        // Appends leave half-full nodes behind; their storage is sized to them (about
        // 1.25 slots per element, against 2 if every node reserved a full node).
        let ratio = Self.reservedRatio(index)
        #expect(ratio < 1.35, "reserved \(ratio) slots per element")
        #expect(index.invariantViolations().isEmpty)
    }
}
