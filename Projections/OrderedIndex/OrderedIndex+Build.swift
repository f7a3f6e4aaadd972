extension OrderedIndex {
    /// Creates an index holding the given elements in the given order.
    ///
    /// The index does not sort; pass the elements already in the order the caller keeps.
    /// The tree is built bottom-up with nodes about three quarters full, each leaf's
    /// storage sized to its elements and four more (see ``leafRoom``), so it takes little
    /// more memory than the elements themselves, and the first insertions after a build
    /// neither split full nodes nor copy whole leaves.
    ///
    /// - Parameter elements: The elements, in order.
    /// - Complexity: O(*n*). A sequence without contiguous storage is first copied into
    ///   a temporary array.
    package init<S: Sequence>(_ elements: S) where S.Element == Element {
        self.init(elements, nodeCapacity: Self.defaultNodeCapacity)
    }

    /// Creates an index holding the given elements in the given order, with nodes of at
    /// most `nodeCapacity` elements.
    init<S: Sequence>(_ elements: S, nodeCapacity: Int) where S.Element == Element {
        self.init(nodeCapacity: nodeCapacity)
        if let built = elements.withContiguousStorageIfAvailable({ buffer in
            Self.build(count: buffer.count, nodeCapacity: nodeCapacity) { buffer[$0] }
        }) {
            root = built
        } else {
            let array = ContiguousArray(elements)
            root = array.withUnsafeBufferPointer { buffer in
                Self.build(count: buffer.count, nodeCapacity: nodeCapacity) { buffer[$0] }
            }
        }
    }

    /// Creates an index of `count` elements made in order by `element(i)`, for `i` from 0
    /// up, without an array of them first.
    ///
    /// - Parameters:
    ///   - count: How many elements the index will hold.
    ///   - element: The element at an index; called once per index, in increasing order.
    /// - Complexity: O(*n*).
    init(count: Int, element: (Int) throws -> Element) rethrows {
        self.init(nodeCapacity: Self.defaultNodeCapacity)
        root = try Self.build(count: count, nodeCapacity: Self.defaultNodeCapacity, element: element)
    }

    /// How many more elements a built leaf has room for.
    ///
    /// A leaf sized to its elements would be copied whole by its first insertion after a
    /// build. Four elements cost about two bytes per row of 24 bytes.
    static var leafRoom: Int { 4 }

    /// Builds a tree bottom-up: first the leaves, spread evenly and about three quarters
    /// full, with one separator between neighbours; then each level of parents over the
    /// level below, until one node remains.
    ///
    /// Full nodes would make nearly every insertion after a build split a node, each
    /// split copying a whole node; at three quarters, a leaf takes a quarter of its
    /// capacity in insertions first.
    /// See ``groupCount(items:capacity:)`` for why every node but the root stays at least
    /// half full.
    private static func build(count total: Int, nodeCapacity: Int, element: (Int) throws -> Element) rethrows -> Node {
        if total <= nodeCapacity {
            let leaf = Node.make(capacity: Swift.min(nodeCapacity, total + Self.leafRoom))
            for index in 0..<total { leaf.appendElement(try element(index)) }
            leaf.countIn(leaf.elements)
            return leaf
        }

        // Leaves: `total + 1` slots (each leaf's elements plus the separator after it, the
        // last leaf having none) shared among the leaves.
        let slots = total + 1
        let leafCount = groupCount(items: slots, capacity: nodeCapacity + 1)
        var nodes = ContiguousArray<Node>()
        nodes.reserveCapacity(leafCount)
        var separators = ContiguousArray<Element>()
        separators.reserveCapacity(leafCount - 1)
        var start = 0
        for k in 0..<leafCount {
            let size = slots * (k + 1) / leafCount - slots * k / leafCount - 1
            let leaf = Node.make(capacity: Swift.min(nodeCapacity, size + Self.leafRoom))
            for index in start..<(start + size) { leaf.appendElement(try element(index)) }
            leaf.countIn(leaf.elements)
            nodes.append(leaf)
            start += size
            if k < leafCount - 1 {
                separators.append(try element(start))
                start += 1
            }
        }

        // Parents: `separators[j]` lies between `nodes[j]` and `nodes[j + 1]`. A parent over
        // `nodes[begin..<end]` takes the separators between them; the one after `end - 1`
        // goes up a level.
        while nodes.count > 1 {
            let childCount = nodes.count
            let parentCount = groupCount(items: childCount, capacity: nodeCapacity + 1)
            var parents = ContiguousArray<Node>()
            parents.reserveCapacity(parentCount)
            var parentSeparators = ContiguousArray<Element>()
            parentSeparators.reserveCapacity(parentCount - 1)
            for k in 0..<parentCount {
                let begin = childCount * k / parentCount
                let end = childCount * (k + 1) / parentCount
                var parentChildren = ContiguousArray<Node>()
                parentChildren.reserveCapacity(nodeCapacity + 1)
                parentChildren.append(contentsOf: nodes[begin..<end])
                let parent = Node.make(capacity: nodeCapacity, children: parentChildren)
                for separator in separators[begin..<(end - 1)] { parent.appendElement(separator) }
                parent.countIn(parent.elements)
                parents.append(parent)
                if k < parentCount - 1 {
                    parentSeparators.append(separators[end - 1])
                }
            }
            nodes = parents
            separators = parentSeparators
        }
        return nodes[0]
    }

    /// How many groups of nearly equal size to spread `items` over, each group at most
    /// `capacity` items and about three quarters of it.
    ///
    /// A group of `g` items is a node of `g - 1` elements (the leaves' separators, or a
    /// parent's children), which must hold at least half of the node capacity,
    /// `capacity - 1`: every group needs `minimum` items. The count is `ceil(items / fill)`
    /// for a fill of three quarters, but no more than `items / minimum` (so each group
    /// has `minimum` or more) and no fewer than `ceil(items / capacity)` (so none is over).
    static func groupCount(items: Int, capacity: Int) -> Int {
        let minimum = (capacity - 1) / 2 + 1
        let fill = Swift.max(minimum, capacity * 3 / 4)
        let filled = Swift.min((items + fill - 1) / fill, items / minimum)
        return Swift.max((items + capacity - 1) / capacity, filled, 1)
    }
}
