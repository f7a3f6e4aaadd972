extension OrderedIndex {
    /// A B-tree node: up to `nodeCapacity` elements in order and, for an internal node,
    /// one more child than elements. Child `i` holds the elements that come before
    /// element `i`; the last child holds those after the last element.
    ///
    /// Nodes are shared between copies of an index. A node is written only while it is
    /// uniquely referenced (checked with `isKnownUniquelyReferenced` on the way down
    /// from the root, copying whatever is shared), so a node reachable from two values
    /// is never modified.
    final class Node {
        // The properties skip the runtime's dynamic exclusivity checks (about a tenth of
        // the instructions of one projected record, measured with callgrind): a node is
        // written only through the index value that uniquely owns it, which an `inout`
        // access to that value already makes exclusive.

        /// The node's own elements, in order.
        @exclusivity(unchecked) var elements: ContiguousArray<Element>
        /// The children of an internal node (`elements.count + 1` of them); empty for a leaf.
        @exclusivity(unchecked) var children: ContiguousArray<Node>
        /// The element count of each child's subtree (`childCounts[i] == children[i].count`).
        ///
        /// Finding a position sums the counts of the children before it; read from the
        /// children themselves, that was a cache miss per child in a large index (about
        /// half of a node's children per level and search).
        @exclusivity(unchecked) var childCounts: ContiguousArray<Int>
        /// The number of elements in this subtree.
        @exclusivity(unchecked) var count: Int
        /// The number of marked elements in this subtree.
        @exclusivity(unchecked) var markedCount: Int

        /// Creates an empty leaf.
        init() {
            elements = []
            children = []
            childCounts = []
            count = 0
            markedCount = 0
        }

        /// Creates a node from its parts, computing the subtree totals.
        ///
        /// - Complexity: O(`elements.count + children.count`).
        init(elements: ContiguousArray<Element>, children: ContiguousArray<Node>) {
            var count = elements.count
            var marked = 0
            for element in elements where element.isMarked { marked += 1 }
            var childCounts = ContiguousArray<Int>()
            childCounts.reserveCapacity(children.capacity)
            for child in children {
                count += child.count
                marked += child.markedCount
                childCounts.append(child.count)
            }
            self.elements = elements
            self.children = children
            self.childCounts = childCounts
            self.count = count
            self.markedCount = marked
        }

        /// Creates a node from its parts and their known totals.
        init(elements: ContiguousArray<Element>, children: ContiguousArray<Node>, childCounts: ContiguousArray<Int>,
             count: Int, markedCount: Int) {
            self.elements = elements
            self.children = children
            self.childCounts = childCounts
            self.count = count
            self.markedCount = markedCount
        }

        /// Whether the node has no children.
        var isLeaf: Bool { children.isEmpty }

        /// A new node with the same contents, sharing the children.
        ///
        /// The copy reserves the same storage as the original (never more than a full
        /// node): a copy replaces the original in the new version of the tree.
        func copy(nodeCapacity: Int) -> Node {
            var newElements = ContiguousArray<Element>()
            newElements.reserveCapacity(Swift.min(nodeCapacity, Swift.max(elements.capacity, elements.count)))
            newElements.append(contentsOf: elements)
            var newChildren = ContiguousArray<Node>()
            var newChildCounts = ContiguousArray<Int>()
            if !children.isEmpty {
                let childCapacity = Swift.min(nodeCapacity + 1, Swift.max(children.capacity, children.count))
                newChildren.reserveCapacity(childCapacity)
                newChildren.append(contentsOf: children)
                newChildCounts.reserveCapacity(childCapacity)
                newChildCounts.append(contentsOf: childCounts)
            }
            return Node(elements: newElements, children: newChildren, childCounts: newChildCounts,
                        count: count, markedCount: markedCount)
        }

        /// The storage to reserve for `needed` elements: a quarter more (at least four
        /// more) for the insertions to come, but never more than a full node.
        ///
        /// Node arrays grow by this rule instead of doubling, so a node holds little more
        /// storage than it has elements (half-full nodes after a split, or after appends at
        /// the end, do not keep storage for a full node).
        static func grownCapacity(for needed: Int, nodeCapacity: Int) -> Int {
            Swift.max(needed, Swift.min(nodeCapacity, needed + Swift.max(4, needed / 4)))
        }

        /// Makes sure `extra` more elements fit in `elements` without reallocating, growing
        /// the storage by ``grownCapacity(for:nodeCapacity:)`` if they do not.
        @inline(__always)
        func reserveRoom(forElements extra: Int, nodeCapacity: Int) {
            let needed = elements.count + extra
            if needed > elements.capacity {
                elements.reserveCapacity(Self.grownCapacity(for: needed, nodeCapacity: nodeCapacity))
            }
        }

        /// Makes child `i` uniquely referenced by this node, copying it if it is shared,
        /// and returns it. This node must itself be uniquely referenced.
        func uniqueChild(_ i: Int, nodeCapacity: Int) -> Node {
            if !isKnownUniquelyReferenced(&children[i]) {
                children[i] = children[i].copy(nodeCapacity: nodeCapacity)
            }
            return children[i]
        }

        /// Finds the child whose subtree holds the element at `position` of this internal
        /// node's subtree, or the own element at that position.
        ///
        /// Returns the slot `i` and the position relative to child `i`'s subtree: less than
        /// `children[i].count` when the element is in that child, equal to it when the
        /// element is `elements[i]`.
        ///
        /// - Complexity: O(`children.count`).
        @inline(__always)
        func slot(containing position: Int) -> (slot: Int, offset: Int) {
            childCounts.withUnsafeBufferPointer { counts in
                var offset = position
                var i = 0
                while true {
                    let childCount = counts[i]
                    if offset <= childCount { return (i, offset) }
                    offset -= childCount + 1
                    i += 1
                }
            }
        }

        /// The number of elements before child `i`'s subtree in this internal node's
        /// subtree: the children before it and their separators.
        ///
        /// - Complexity: O(`i`), over one array.
        @inline(__always)
        func elementsBefore(child i: Int) -> Int {
            childCounts.withUnsafeBufferPointer { counts in
                var total = i
                for k in 0..<i { total &+= counts[k] }
                return total
            }
        }
    }
}

// Safe because a node is mutated only while it is uniquely referenced: every mutation
// starts from an index value that owns its root exclusively (`inout`), and walks down
// copying any node whose reference is shared. A node reachable from two values (and so
// possibly from two threads) is therefore only ever read, never written.
extension OrderedIndex.Node: @unchecked Sendable where Element: Sendable {}
