extension OrderedIndex {
    /// The number of marked elements before a position.
    ///
    /// - Parameter position: A position in `0...count`.
    /// - Returns: How many elements in `0..<position` are marked.
    /// - Complexity: O(log *n*).
    package func markedCount(before position: Int) -> Int {
        precondition(position >= 0 && position <= count, "OrderedIndex position out of range")
        var node = root
        var offset = position
        var marked = 0
        while true {
            if offset == node.count { return marked + node.markedCount }
            if node.isLeaf {
                for element in node.elements[..<offset] where element.isMarked { marked += 1 }
                return marked
            }
            var i = 0
            while true {
                let child = node.children[i]
                if offset <= child.count {
                    node = child
                    break
                }
                marked += child.markedCount + (node.elements[i].isMarked ? 1 : 0)
                offset -= child.count + 1
                i += 1
            }
        }
    }

    /// The number of unmarked elements before a position.
    ///
    /// - Parameter position: A position in `0...count`.
    /// - Returns: How many elements in `0..<position` are not marked.
    /// - Complexity: O(log *n*).
    package func unmarkedCount(before position: Int) -> Int {
        position - markedCount(before: position)
    }

    /// The position of the unmarked element with a given rank among unmarked elements.
    ///
    /// - Parameter n: A zero-based rank in `0..<unmarkedCount`.
    /// - Returns: The position of the `n`-th unmarked element.
    /// - Complexity: O(log *n*).
    package func indexOfUnmarked(_ n: Int) -> Int {
        precondition(n >= 0 && n < unmarkedCount, "OrderedIndex unmarked rank out of range")
        return position(ofNth: n, marked: false)
    }

    /// The position of the marked element with a given rank among marked elements.
    ///
    /// - Parameter n: A zero-based rank in `0..<markedCount`.
    /// - Returns: The position of the `n`-th marked element.
    /// - Complexity: O(log *n*).
    package func indexOfMarked(_ n: Int) -> Int {
        precondition(n >= 0 && n < markedCount, "OrderedIndex marked rank out of range")
        return position(ofNth: n, marked: true)
    }

    /// The position of the `n`-th element whose `isMarked` equals `wanted`; `n` must be in range.
    private func position(ofNth n: Int, marked wanted: Bool) -> Int {
        var node = root
        var rank = n
        var base = 0
        while true {
            if node.isLeaf {
                let elements = node.elements
                for offset in elements.indices where elements[offset].isMarked == wanted {
                    if rank == 0 { return base + offset }
                    rank -= 1
                }
                preconditionFailure("OrderedIndex marked counts are inconsistent")
            }
            var i = 0
            while true {
                let child = node.children[i]
                let matching = wanted ? child.markedCount : child.count - child.markedCount
                if rank < matching {
                    node = child
                    break
                }
                rank -= matching
                base += child.count
                if node.elements[i].isMarked == wanted {
                    if rank == 0 { return base }
                    rank -= 1
                }
                base += 1
                i += 1
            }
        }
    }
}
