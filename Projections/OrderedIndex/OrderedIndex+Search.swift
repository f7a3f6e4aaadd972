extension OrderedIndex {
    /// The first position whose element satisfies a predicate that is false for a prefix
    /// of the index and true for the rest; `count` when it holds for no element.
    ///
    /// Use it to find where a key belongs in an index kept sorted by that key (for
    /// example `partitionIndex { $0.key >= key }` for the first element not less than
    /// `key`), and so the rank of an existing element.
    ///
    /// - Parameter belongsInSecondPartition: A predicate that is false for every element
    ///   before some position and true for every element from it on.
    /// - Returns: The position where the predicate first holds, in `0...count`.
    /// - Complexity: O(log *n*) evaluations of the predicate: a binary search in each
    ///   node along one root-to-leaf path.
    package func partitionIndex(where belongsInSecondPartition: (Element) throws -> Bool) rethrows -> Int {
        var node = root
        var base = 0
        while true {
            var low = 0
            var high = node.elementCount
            while low < high {
                let middle = low &+ (high &- low) >> 1
                if try belongsInSecondPartition(node.elements[middle]) {
                    high = middle
                } else {
                    low = middle &+ 1
                }
            }
            if node.isLeaf { return base + low }
            // Elements before `low` in this node, and every child subtree before child
            // `low`, are in the first partition.
            base += node.elementsBefore(child: low)
            node = node.children[low]
        }
    }

    /// Walks to the first position of a partition of the index and returns what `body`
    /// makes of it. `split` is handed each node's elements along one root-to-leaf path
    /// and returns where the partition falls among them (as ``partitionIndex(where:)``'s
    /// binary search would).
    ///
    /// The elements are lent from the node's storage, so that a search can read a field
    /// of an element without copying it: a copy of an element that holds a reference
    /// retains and releases it, which touches the object it refers to.
    ///
    /// `split` must not change the index or keep the buffer it is lent.
    ///
    /// `body` is handed the position found and the element there (`nil` at the end),
    /// read in place on the same walk: the one at the split in the leaf reached or, past
    /// the leaf's last element, the separator after the subtree (the nearest ancestor's
    /// element after the child the walk went down). It must not keep the pointer.
    ///
    /// The walk holds no reference of its own to the nodes: retaining
    /// each node on the way down would be an atomic write to memory the search only reads.
    ///
    /// With `steps`, the walk records its way down in them and hands `body` the
    /// ``Path``, for a mutation at the position found (it must not outlive `steps`).
    /// - Complexity: O(log *n*) plus what `split` costs in each node.
    func partitionIndex<R>(splittingNodes split: (UnsafeBufferPointer<Element>) -> Int,
                           recording steps: UnsafeMutableBufferPointer<PathStep>? = nil,
                           _ body: (Int, UnsafePointer<Element>?, Path) -> R) -> R {
        // Unretained: `self` holds the root for the whole walk, every node holds its
        // children, and nothing here writes to the tree.
        var node = Unmanaged.passUnretained(root)
        var base = 0
        var depth = 0
        var following: UnsafePointer<Element>?
        while true {
            let next: Unmanaged<Node>? = node._withUnsafeGuaranteedRef { node in
                let elements = node.elements
                let low = split(UnsafeBufferPointer(elements))
                base += low
                if low < elements.count { following = UnsafePointer(elements.baseAddress! + low) }
                if node.isLeaf { return nil }
                let before = node.elementsBefore(child: low)
                base += before - low
                if let steps, depth < steps.count {
                    steps[depth] = PathStep(child: low, before: before)
                    depth += 1
                }
                return node.children.withUnsafeBufferPointer { Unmanaged.passUnretained($0[low]) }
            }
            guard let next else {
                var path = Path.none
                if let steps { path = Path(steps: UnsafeBufferPointer(rebasing: steps[..<depth])) }
                return body(base, following, path)
            }
            node = next
        }
    }

    /// The first position in one node's `elements` that is not in the first partition
    /// (`isBefore` is true for a prefix of them and false for the rest).
    ///
    /// It first reads every `step`-th element in order, then binary-searches the few
    /// between. Those first reads' addresses do not depend on the comparisons, so with
    /// the scan's branch predicted a processor fetches their cache lines together; a
    /// binary search's probes each wait for the last one's, one cache miss after another
    /// in a node that is not in cache.
    /// - Complexity: O(*m* / `step` + log `step`) for *m* elements.
    @inline(__always)
    static func partitionPoint(of elements: UnsafeBufferPointer<Element>, step: Int,
                               isBefore: (UnsafePointer<Element>) -> Bool) -> Int {
        precondition(step > 0, "a node search must step forward")
        guard let first = elements.baseAddress else { return 0 }
        var low = 0
        var head = 0
        while head < elements.count && isBefore(first + head) {
            low = head &+ 1
            head &+= step
        }
        var high = Swift.min(head, elements.count)
        while low < high {
            let middle = low &+ (high &- low) >> 1
            if isBefore(first + middle) { low = middle &+ 1 } else { high = middle }
        }
        return low
    }

    /// How many elements a cache line holds: the step of ``partitionPoint(of:step:isBefore:)``
    /// for a node's elements of this type (at least 1).
    static var elementsPerLine: Int { Swift.max(1, 64 / MemoryLayout<Element>.stride) }
}
