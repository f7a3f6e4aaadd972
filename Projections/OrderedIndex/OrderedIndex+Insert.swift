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
    public mutating func insert(_ element: Element, at position: Int) {
        precondition(position >= 0 && position <= count, "OrderedIndex insertion position out of range")
        let capacity = nodeCapacity
        let oldRoot = uniqueRoot()
        guard let (separator, right) = oldRoot.insert(element, at: position, nodeCapacity: capacity) else { return }
        var elements = ContiguousArray<Element>()
        elements.reserveCapacity(capacity)
        elements.append(separator)
        var children = ContiguousArray<Node>()
        children.reserveCapacity(capacity + 1)
        children.append(oldRoot)
        children.append(right)
        var childCounts = ContiguousArray<Int>()
        childCounts.reserveCapacity(capacity + 1)
        childCounts.append(oldRoot.count)
        childCounts.append(right.count)
        root = Node(
            elements: elements,
            children: children,
            childCounts: childCounts,
            count: oldRoot.count + 1 + right.count,
            markedCount: oldRoot.markedCount + (separator.isMarked ? 1 : 0) + right.markedCount
        )
    }

    /// Adds an element after the last one.
    ///
    /// - Complexity: O(log *n*).
    public mutating func append(_ element: Element) {
        insert(element, at: count)
    }
}

extension OrderedIndex.Node {
    /// Inserts `element` at `position` of this uniquely referenced node's subtree.
    ///
    /// When the node overflows it splits: it keeps the first half and returns the
    /// separating element and a new right sibling, which the caller must insert after it.
    func insert(_ element: Element, at position: Int, nodeCapacity: Int) -> (Element, OrderedIndex.Node)? {
        count += 1
        if element.isMarked { markedCount += 1 }
        if isLeaf {
            if elements.count < nodeCapacity {
                reserveRoom(forElements: 1, nodeCapacity: nodeCapacity)
                elements.insert(element, at: position)
                return nil
            }
            return split(inserting: element, at: position, child: nil, nodeCapacity: nodeCapacity)
        }
        let (i, offset) = slot(containing: position)
        let child = uniqueChild(i, nodeCapacity: nodeCapacity)
        guard let (separator, right) = child.insert(element, at: offset, nodeCapacity: nodeCapacity) else {
            childCounts[i] += 1
            return nil
        }
        childCounts[i] = child.count
        if elements.count < nodeCapacity {
            reserveRoom(forElements: 1, nodeCapacity: nodeCapacity)
            elements.insert(separator, at: i)
            children.insert(right, at: i + 1)
            childCounts.insert(right.count, at: i + 1)
            return nil
        }
        return split(inserting: separator, at: i, child: right, nodeCapacity: nodeCapacity)
    }

    /// Splits this full node while inserting `element` at element slot `position` (and,
    /// for an internal node, `child` just after it at child slot `position + 1`).
    ///
    /// Of the `nodeCapacity + 1` elements, the first `(nodeCapacity + 1) / 2` stay here,
    /// the next one is returned as the separator and the rest move to the returned node;
    /// both halves hold at least `nodeCapacity / 2` elements. The subtree totals of this
    /// node must already include the inserted element.
    ///
    /// Both halves get new storage sized for their elements (see
    /// ``grownCapacity(for:nodeCapacity:)``) rather than keeping a full node's worth.
    private func split(
        inserting element: Element,
        at position: Int,
        child: OrderedIndex.Node?,
        nodeCapacity: Int
    ) -> (Element, OrderedIndex.Node) {
        let total = elements.count + 1
        let middle = total / 2
        var leftElements = ContiguousArray<Element>()
        leftElements.reserveCapacity(Self.grownCapacity(for: middle, nodeCapacity: nodeCapacity))
        var rightElements = ContiguousArray<Element>()
        rightElements.reserveCapacity(Self.grownCapacity(for: total - middle - 1, nodeCapacity: nodeCapacity))
        let separator: Element
        if position < middle {
            leftElements.append(contentsOf: elements[..<position])
            leftElements.append(element)
            leftElements.append(contentsOf: elements[position..<(middle - 1)])
            separator = elements[middle - 1]
            rightElements.append(contentsOf: elements[middle...])
        } else if position == middle {
            leftElements.append(contentsOf: elements[..<middle])
            separator = element
            rightElements.append(contentsOf: elements[middle...])
        } else {
            leftElements.append(contentsOf: elements[..<middle])
            separator = elements[middle]
            rightElements.append(contentsOf: elements[(middle + 1)..<position])
            rightElements.append(element)
            rightElements.append(contentsOf: elements[position...])
        }
        elements = leftElements

        // Children: the left half keeps child slots `0...middle` of the combined list, the
        // right half the rest. `child` goes just after the old child at slot `position`.
        var rightChildren = ContiguousArray<OrderedIndex.Node>()
        if let child {
            rightChildren.reserveCapacity(nodeCapacity + 1)
            if position < middle {
                rightChildren.append(contentsOf: children[middle...])
                children.removeSubrange(middle...)
                children.insert(child, at: position + 1)
            } else if position == middle {
                rightChildren.append(child)
                rightChildren.append(contentsOf: children[(middle + 1)...])
                children.removeSubrange((middle + 1)...)
            } else {
                rightChildren.append(contentsOf: children[(middle + 1)...])
                rightChildren.insert(child, at: position - middle)
                children.removeSubrange((middle + 1)...)
            }
        }
        if child != nil {
            // Rare (one split of a parent per many of its leaves): the counts are read again.
            childCounts.removeAll(keepingCapacity: true)
            for child in children { childCounts.append(child.count) }
        }
        let right = OrderedIndex.Node(elements: rightElements, children: rightChildren)
        count -= right.count + 1
        markedCount -= right.markedCount + (separator.isMarked ? 1 : 0)
        return (separator, right)
    }
}
