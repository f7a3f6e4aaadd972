extension OrderedIndex {
    /// The element at a position.
    ///
    /// Setting replaces the element in place, like ``update(at:with:)``; the index does
    /// not check that the order the caller keeps is preserved.
    ///
    /// - Parameter position: A position in `0..<count`.
    /// - Complexity: O(log *n*) to get or set. To visit many consecutive elements, iterate
    ///   instead (O(1) amortised per element).
    package subscript(position: Int) -> Element {
        get {
            precondition(position >= 0 && position < count, "OrderedIndex position out of range")
            var node = root
            var offset = position
            while !node.isLeaf {
                let (i, childOffset) = node.slot(containing: offset)
                if childOffset == node.childCounts[i] { return node.elements[i] }
                node = node.children[i]
                offset = childOffset
            }
            return node.elements[offset]
        }
        set {
            update(at: position, with: newValue)
        }
    }

    /// Replaces the element at a position and returns the one it replaced.
    ///
    /// The index does not check order; the new element must belong at the same position
    /// for a caller that keeps the index sorted. The marked counts are updated when the
    /// new element's ``OrderedIndexElement/isMarked`` differs from the old one's.
    ///
    /// - Parameters:
    ///   - position: A position in `0..<count`.
    ///   - element: The new element.
    /// - Returns: The element that was at `position`.
    /// - Complexity: O(log *n*), plus copying the O(log *n*) nodes on the path that are
    ///   shared with another copy of the index.
    @discardableResult
    package mutating func update(at position: Int, with element: Element) -> Element {
        update(at: position, with: element, along: .none)
    }

    /// ``update(at:with:)`` at the position a walk found, taking each internal node's
    /// child from the walk's `path` (see ``Path``).
    @discardableResult
    mutating func update(at position: Int, with element: Element, along path: Path) -> Element {
        precondition(position >= 0 && position < count, "OrderedIndex position out of range")
        return uniqueRoot().update(at: position, with: element, nodeCapacity: nodeCapacity, along: path, depth: 0)
    }
}

extension OrderedIndex.Node {
    /// Replaces the element at `position` of this uniquely referenced node's subtree,
    /// adjusting the marked counts on the way back up.
    func update(at position: Int, with element: Element, nodeCapacity: Int,
                along path: OrderedIndex.Path, depth: Int) -> Element {
        let old: Element
        if isLeaf {
            old = replaceElement(at: position, with: element)
        } else {
            let (i, offset) = slot(containing: position, along: path, depth: depth)
            if offset == childCounts[i] {
                old = replaceElement(at: i, with: element)
            } else {
                old = uniqueChild(i, nodeCapacity: nodeCapacity)
                    .update(at: offset, with: element, nodeCapacity: nodeCapacity, along: path, depth: depth + 1)
            }
        }
        if old.isMarked != element.isMarked {
            markedCount += element.isMarked ? 1 : -1
        }
        return old
    }
}
