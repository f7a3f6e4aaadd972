extension OrderedIndex {
    /// Removes and returns the element at a position, shifting the later elements down
    /// by one.
    ///
    /// - Parameter position: The position of the element to remove, in `0..<count`.
    /// - Returns: The removed element.
    /// - Complexity: O(log *n*), plus copying the O(log *n*) nodes on the path (and
    ///   their siblings used for rebalancing) that are shared with another copy.
    @discardableResult
    package mutating func remove(at position: Int) -> Element {
        remove(at: position, along: .none)
    }

    /// ``remove(at:)`` at the position a walk found, taking each internal node's child
    /// from the walk's `path` (see ``Path``).
    @discardableResult
    mutating func remove(at position: Int, along path: Path) -> Element {
        precondition(position >= 0 && position < count, "OrderedIndex removal position out of range")
        let node = uniqueRoot()
        let removed = node.remove(at: position, nodeCapacity: nodeCapacity, along: path, depth: 0)
        if node.elementCount == 0 && !node.isLeaf {
            root = node.children[0]
        }
        return removed
    }

    /// Removes all elements.
    ///
    /// - Complexity: O(1) when a copy still shares the old nodes; otherwise O(*n*) to
    ///   free them.
    package mutating func removeAll() {
        root = Node.make(capacity: 0)
    }
}

extension OrderedIndex.Node {
    /// Removes and returns the element at `position` of this uniquely referenced node's
    /// subtree, leaving every child of this node at least half full. This node itself may
    /// be left under-full; its parent rebalances it.
    func remove(at position: Int, nodeCapacity: Int, along path: OrderedIndex.Path, depth: Int) -> Element {
        if isLeaf {
            let removed = removeElement(at: position)
            count -= 1
            if removed.isMarked { markedCount -= 1 }
            return removed
        }
        let (i, offset) = slot(containing: position, along: path, depth: depth)
        let removed: Element
        let child = uniqueChild(i, nodeCapacity: nodeCapacity)
        if offset < childCounts[i] {
            removed = child.remove(at: offset, nodeCapacity: nodeCapacity, along: path, depth: depth + 1)
        } else {
            // The element is this node's own: replace it by its predecessor, the last
            // element of the child before it (where a walk to this element went on down).
            let predecessor = child.remove(at: offset - 1, nodeCapacity: nodeCapacity, along: path, depth: depth + 1)
            removed = replaceElement(at: i, with: predecessor)
        }
        childCounts[i] -= 1
        count -= 1
        if removed.isMarked { markedCount -= 1 }
        rebalance(child: i, nodeCapacity: nodeCapacity)
        return removed
    }

    /// Restores the minimum fill of child `i` after a removal below it, by taking an
    /// element from a sibling that can spare one or else merging with a sibling.
    private func rebalance(child i: Int, nodeCapacity: Int) {
        let minimum = nodeCapacity / 2
        guard children[i].elementCount < minimum else { return }
        if i > 0 && children[i - 1].elementCount > minimum {
            rotateRight(into: i, nodeCapacity: nodeCapacity)
        } else if i + 1 < children.count && children[i + 1].elementCount > minimum {
            rotateLeft(into: i, nodeCapacity: nodeCapacity)
        } else if i > 0 {
            merge(at: i - 1, nodeCapacity: nodeCapacity)
        } else {
            merge(at: i, nodeCapacity: nodeCapacity)
        }
    }

    /// Moves the separator before child `i` to the front of child `i`, and the last
    /// element (and last child) of child `i - 1` up to replace it.
    private func rotateRight(into i: Int, nodeCapacity: Int) {
        let left = uniqueChild(i - 1, nodeCapacity: nodeCapacity)
        let child = uniqueChild(i, room: 1, nodeCapacity: nodeCapacity)
        let lifted = left.removeElement(at: left.elementCount - 1)
        let separator = replaceElement(at: i - 1, with: lifted)
        child.insertElement(separator, at: 0)
        var movedCount = 1
        var movedMarked = separator.isMarked ? 1 : 0
        left.count -= 1
        if lifted.isMarked { left.markedCount -= 1 }
        if !left.isLeaf {
            let grandchild = left.children.removeLast()
            child.children.insert(grandchild, at: 0)
            child.childCounts.insert(left.childCounts.removeLast(), at: 0)
            left.count -= grandchild.count
            left.markedCount -= grandchild.markedCount
            movedCount += grandchild.count
            movedMarked += grandchild.markedCount
        }
        child.count += movedCount
        child.markedCount += movedMarked
        childCounts[i - 1] = left.count
        childCounts[i] = child.count
    }

    /// Moves the separator after child `i` to the end of child `i`, and the first element
    /// (and first child) of child `i + 1` up to replace it.
    private func rotateLeft(into i: Int, nodeCapacity: Int) {
        let child = uniqueChild(i, room: 1, nodeCapacity: nodeCapacity)
        let right = uniqueChild(i + 1, nodeCapacity: nodeCapacity)
        let lifted = right.removeElement(at: 0)
        let separator = replaceElement(at: i, with: lifted)
        child.appendElement(separator)
        var movedCount = 1
        var movedMarked = separator.isMarked ? 1 : 0
        right.count -= 1
        if lifted.isMarked { right.markedCount -= 1 }
        if !right.isLeaf {
            let grandchild = right.children.removeFirst()
            child.children.append(grandchild)
            child.childCounts.append(right.childCounts.removeFirst())
            right.count -= grandchild.count
            right.markedCount -= grandchild.markedCount
            movedCount += grandchild.count
            movedMarked += grandchild.markedCount
        }
        child.count += movedCount
        child.markedCount += movedMarked
        childCounts[i] = child.count
        childCounts[i + 1] = right.count
    }

    /// Merges child `j + 1` and the separator between them into child `j`.
    private func merge(at j: Int, nodeCapacity: Int) {
        let left = uniqueChild(j, room: 1 + children[j + 1].elementCount, nodeCapacity: nodeCapacity)
        let separator = removeElement(at: j)
        var right = children.remove(at: j + 1)
        childCounts.remove(at: j + 1)
        left.appendElement(separator)
        let rightIsUnique = isKnownUniquelyReferenced(&right)
        left.appendElements(of: right, moving: rightIsUnique)
        left.children.append(contentsOf: right.children)
        left.childCounts.append(contentsOf: right.childCounts)
        left.count += 1 + right.count
        left.markedCount += (separator.isMarked ? 1 : 0) + right.markedCount
        childCounts[j] = left.count
    }
}
