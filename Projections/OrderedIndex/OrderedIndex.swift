/// An element that an ``OrderedIndex`` can store.
///
/// The index keeps, for every subtree, how many of its elements are *marked*, so that
/// it can count marked elements before a position and find the *n*-th marked or
/// unmarked element in O(log *n*).
package protocol OrderedIndexElement {
    /// Whether the element counts as marked.
    ///
    /// The value must not change while the element is stored in an index; to change
    /// it, replace the element with ``OrderedIndex/update(at:with:)``.
    var isMarked: Bool { get }
}

/// A persistent positional sequence with O(log *n*) access, insertion and removal by
/// index, stored as an order-statistic B-tree.
///
/// The index is *positional*: it never compares elements. Callers keep the elements in
/// whatever order they need, computing positions with ``partitionIndex(where:)``.
///
/// Every node records its subtree's element count and its count of marked elements
/// (see ``OrderedIndexElement/isMarked``), so rank queries over marks are logarithmic too.
///
/// The index is a value type with structural sharing. Copying it is O(1); a mutation
/// copies only the nodes on its path that are shared with another copy (or that need
/// more room than their storage has), so a copy never observes later mutations of the
/// original, and vice versa.
package struct OrderedIndex<Element: OrderedIndexElement> {
    /// The root node; an empty leaf when the index is empty.
    var root: Node

    /// The most elements a node may hold. Every node other than the root holds at
    /// least `nodeCapacity / 2`.
    let nodeCapacity: Int

    /// Creates an empty index.
    ///
    /// - Complexity: O(1).
    package init() {
        self.init(nodeCapacity: Self.defaultNodeCapacity)
    }

    /// Creates an empty index whose nodes hold at most `nodeCapacity` elements.
    ///
    /// Tests use small capacities to build deep trees from few elements.
    init(nodeCapacity: Int) {
        precondition(nodeCapacity >= 2, "An OrderedIndex node must hold at least two elements")
        self.root = Node.make(capacity: 0)
        self.nodeCapacity = nodeCapacity
    }

    /// The number of elements in the index.
    ///
    /// - Complexity: O(1).
    package var count: Int { root.count }

    /// Whether the index holds no elements.
    ///
    /// - Complexity: O(1).
    package var isEmpty: Bool { root.count == 0 }

    /// The number of marked elements in the index.
    ///
    /// - Complexity: O(1).
    package var markedCount: Int { root.markedCount }

    /// The number of unmarked elements in the index.
    ///
    /// - Complexity: O(1).
    package var unmarkedCount: Int { root.count - root.markedCount }

    /// The node capacity used by ``init()`` and ``init(_:)``: 64 elements, or fewer
    /// where that is more than 2 KiB of them (at least 16).
    ///
    /// Smaller nodes make a taller tree (a level more to walk, a node's overhead on more
    /// nodes); larger ones make copying a path shared with a snapshot (a node copy per
    /// level) and each insertion or removal (which shifts half a node on average) cost
    /// more. 64 elements balance the two for the rows of a view.
    static var defaultNodeCapacity: Int {
        let stride = Swift.max(1, MemoryLayout<Element>.stride)
        return Swift.min(64, Swift.max(16, 2048 / stride))
    }

    /// Makes the root uniquely referenced by this value, with room for `room` more
    /// elements (see ``Node/hasRoom(for:nodeCapacity:)``), and returns it: a copy if it
    /// was shared, a larger one if it had no room.
    @inline(__always)
    mutating func uniqueRoot(room: Int = 0) -> Node {
        let isUnique = isKnownUniquelyReferenced(&root)
        if isUnique && root.hasRoom(for: room, nodeCapacity: nodeCapacity) { return root }
        root = root.copy(room: room, nodeCapacity: nodeCapacity, moving: isUnique)
        return root
    }
}

// Safe because a node is mutated only while it is uniquely referenced: every mutation
// starts from an index value that owns its root exclusively (`inout`), and walks down
// copying any node whose reference is shared. A node reachable from two values (and so
// possibly from two threads) is therefore only ever read, never written. (`ManagedBuffer`,
// which a node is, opts out of `Sendable`, so the index states it for its nodes.)
extension OrderedIndex: @unchecked Sendable where Element: Sendable {}
