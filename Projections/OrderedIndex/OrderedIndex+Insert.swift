extension OrderedIndex {
    /// Inserts an element at a position, shifting the later elements up by one.
    ///
    /// The index does not check order; find the position with ``partitionIndex(where:)``
    /// to keep a sorted index sorted.
    ///
    /// - Parameters:
    ///   - element: The element to insert.
    ///   - position: Where to insert it, in `0...count`.
    /// - Complexity: O(log *n*), plus copying the O(log *n*) nodes on the path that are
    ///   shared with another copy of the index.
    package mutating func insert(_ element: Element, at position: Int) {
        insert(element, at: position, along: .none)
    }

    /// ``insert(_:at:)`` at the position a walk found, taking each internal node's child
    /// from the walk's `path` (see ``Path``).
    mutating func insert(_ element: Element, at position: Int, along path: Path) {
        precondition(position >= 0 && position <= count, "OrderedIndex insertion position out of range")
        let capacity = nodeCapacity
        guard let split = uniqueRoot(room: 1).insert(element, at: position, nodeCapacity: capacity,
                                                     along: path, depth: 0) else { return }
        var children = ContiguousArray<Node>()
        children.reserveCapacity(capacity + 1)
        children.append(split.left)
        children.append(split.right)
        let newRoot = Node.make(capacity: capacity, children: children)
        newRoot.appendElement(split.separator)
        newRoot.count += 1
        if split.separator.isMarked { newRoot.markedCount += 1 }
        root = newRoot
    }

    /// Adds an element after the last one.
    ///
    /// - Complexity: O(log *n*).
    package mutating func append(_ element: Element) {
        insert(element, at: count)
    }
}

extension OrderedIndex.Node {
    /// A full node split in two around a separating element: they replace it in its parent.
    struct Split {
        var left: OrderedIndex.Node
        var separator: Element
        var right: OrderedIndex.Node
    }

    /// Inserts `element` at `position` of this uniquely referenced node's subtree. The
    /// node must have room for one more element unless it is full (see
    /// ``hasRoom(for:nodeCapacity:)``); it makes sure of that for the child it goes into.
    ///
    /// When the node is full it splits: the caller must put the two halves and their
    /// separator in its place, and drop this node, which is left empty.
    func insert(_ element: Element, at position: Int, nodeCapacity: Int,
                along path: OrderedIndex.Path, depth: Int) -> Split? {
        count += 1
        if element.isMarked { markedCount += 1 }
        if isLeaf {
            if elementCount < nodeCapacity {
                insertElement(element, at: position)
                return nil
            }
            return split(inserting: element, at: position, child: nil, nodeCapacity: nodeCapacity)
        }
        let (i, offset) = slot(containing: position, along: path, depth: depth)
        let child = uniqueChild(i, room: 1, nodeCapacity: nodeCapacity)
        guard let split = child.insert(element, at: offset, nodeCapacity: nodeCapacity,
                                       along: path, depth: depth + 1) else {
            childCounts[i] += 1
            return nil
        }
        children[i] = split.left
        childCounts[i] = split.left.count
        if elementCount < nodeCapacity {
            insertElement(split.separator, at: i)
            children.insert(split.right, at: i + 1)
            childCounts.insert(split.right.count, at: i + 1)
            return nil
        }
        return self.split(inserting: split.separator, at: i, child: split.right, nodeCapacity: nodeCapacity)
    }

    /// Splits this full node while inserting `element` at element slot `position` (and,
    /// for an internal node, `child` just after it at child slot `position + 1`).
    ///
    /// Of the `nodeCapacity + 1` elements, the first `(nodeCapacity + 1) / 2` go to the
    /// left half, the next one is the separator and the rest go to the right half; both
    /// halves hold at least `nodeCapacity / 2` elements. The elements and children are
    /// moved, and this node is left empty.
    ///
    /// Both halves get new storage sized for their elements (see
    /// ``grownCapacity(for:nodeCapacity:)``) rather than a full node's worth.
    private func split(
        inserting element: Element,
        at position: Int,
        child: OrderedIndex.Node?,
        nodeCapacity: Int
    ) -> Split {
        let total = elementCount + 1
        let middle = total / 2
        // Children: the left half takes child slots `0...middle` of the combined list, the
        // right half the rest. `child` goes just after the old child at slot `position`.
        var leftChildren = ContiguousArray<OrderedIndex.Node>()
        var rightChildren = ContiguousArray<OrderedIndex.Node>()
        if let child {
            var all = ContiguousArray<OrderedIndex.Node>()
            swap(&all, &children)
            childCounts = []
            all.insert(child, at: position + 1)
            leftChildren.reserveCapacity(nodeCapacity + 1)
            leftChildren.append(contentsOf: all[...middle])
            rightChildren.reserveCapacity(nodeCapacity + 1)
            rightChildren.append(contentsOf: all[(middle + 1)...])
        }
        let left = Self.make(capacity: Self.grownCapacity(for: middle, nodeCapacity: nodeCapacity),
                             children: leftChildren)
        let right = Self.make(capacity: Self.grownCapacity(for: total - middle - 1, nodeCapacity: nodeCapacity),
                              children: rightChildren)
        let n = elementCount
        let separator: Element
        if position < middle {
            left.appendElements(moving: self, 0..<position)
            left.appendElement(element)
            left.appendElements(moving: self, position..<(middle - 1))
            separator = moveElement(at: middle - 1)
            right.appendElements(moving: self, middle..<n)
        } else if position == middle {
            left.appendElements(moving: self, 0..<middle)
            separator = element
            right.appendElements(moving: self, middle..<n)
        } else {
            left.appendElements(moving: self, 0..<middle)
            separator = moveElement(at: middle)
            right.appendElements(moving: self, (middle + 1)..<position)
            right.appendElement(element)
            right.appendElements(moving: self, position..<n)
        }
        abandonElements()
        left.countIn(left.elements)
        right.countIn(right.elements)
        return Split(left: left, separator: separator, right: right)
    }
}
