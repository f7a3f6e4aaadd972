extension OrderedIndex: Sequence {
    /// An iterator over an index's elements in order.
    ///
    /// It keeps the path from the root to the current node, so each step is O(1)
    /// amortised. The iterator holds its own references to the nodes: mutating the
    /// index during iteration does not affect it (the mutation copies the shared path).
    package struct Iterator: IteratorProtocol {
        /// The current leaf, if any.
        private var leaf: Node?
        /// The slot in `leaf` of the next element to return.
        private var leafOffset: Int
        /// The internal nodes above the current leaf, outermost first, each with the
        /// slot of the own element to return once the child below it is exhausted.
        private var path: ContiguousArray<(node: Node, slot: Int)>

        /// Creates an iterator whose first element is the one at `position`.
        init(root: Node, startingAt position: Int) {
            leaf = nil
            leafOffset = 0
            path = []
            guard position < root.count else { return }
            var node = root
            var offset = position
            while !node.isLeaf {
                let (i, childOffset) = node.slot(containing: offset)
                path.append((node, i))
                let child = node.children[i]
                if childOffset == child.count { return }  // Next comes `node.elements[i]`.
                node = child
                offset = childOffset
            }
            leaf = node
            leafOffset = offset
        }

        /// Returns the next element, or `nil` after the last one.
        ///
        /// - Complexity: O(1) amortised.
        package mutating func next() -> Element? {
            if let leaf, leafOffset < leaf.elementCount {
                defer { leafOffset += 1 }
                return leaf.elements[leafOffset]
            }
            while let top = path.last {
                let slot = top.slot
                if slot < top.node.elementCount {
                    path[path.count - 1].slot = slot + 1
                    descendToFirstLeaf(of: top.node.children[slot + 1])
                    return top.node.elements[slot]
                }
                path.removeLast()
            }
            return nil
        }

        /// Makes the first leaf of `node`'s subtree the current one.
        private mutating func descendToFirstLeaf(of node: Node) {
            var node = node
            while !node.isLeaf {
                path.append((node, 0))
                node = node.children[0]
            }
            leaf = node
            leafOffset = 0
        }
    }

    /// Returns an iterator over the elements in order.
    ///
    /// - Complexity: O(log *n*) to create; O(1) amortised per element.
    package func makeIterator() -> Iterator {
        Iterator(root: root, startingAt: 0)
    }

    /// Returns an iterator over the elements from a position on, in order.
    ///
    /// - Parameter position: The position of the first element to return, in `0...count`.
    /// - Complexity: O(log *n*) to create; O(1) amortised per element.
    package func makeIterator(startingAt position: Int) -> Iterator {
        precondition(position >= 0 && position <= count, "OrderedIndex position out of range")
        return Iterator(root: root, startingAt: position)
    }
}

// Safe for the reason the index is (see its `Sendable` conformance): the iterator only
// reads the nodes it holds, and an index that shares them copies them before writing.
extension OrderedIndex.Iterator: @unchecked Sendable where Element: Sendable {}
