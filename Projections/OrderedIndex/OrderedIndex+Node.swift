extension OrderedIndex {
    /// A node's fields, stored in front of its elements (see ``Node``).
    struct NodeHeader {
        /// How many elements the node holds, at the front of its element storage.
        var elementCount: Int
        /// How many elements the node's storage has room for.
        let capacity: Int
        /// The number of elements in this subtree.
        var count: Int
        /// The number of marked elements in this subtree.
        var markedCount: Int
        /// The children of an internal node (`elementCount + 1` of them); empty for a leaf.
        var children: ContiguousArray<Node>
        /// The element count of each child's subtree (`childCounts[i] == children[i].count`).
        ///
        /// Finding a position sums the counts of the children before it; read from the
        /// children themselves, that would be a cache miss per child in a large index (about
        /// half of a node's children per level and search).
        var childCounts: ContiguousArray<Int>
    }

    /// A B-tree node: up to `nodeCapacity` elements in order and, for an internal node,
    /// one more child than elements. Child `i` holds the elements that come before
    /// element `i`; the last child holds those after the last element.
    ///
    /// A node is one allocation: its fields, then its elements, so that a search waits on
    /// one cache miss per node, not two (the node, then an array of its elements), and
    /// retains nothing to read them. Its storage has room for a fixed number of
    /// elements, so a node that needs more is replaced by a larger copy, which its parent
    /// then holds (``OrderedIndex/Node/uniqueChild(_:room:nodeCapacity:)``).
    ///
    /// Nodes are shared between copies of an index. A node is written only while it is
    /// uniquely referenced (checked with `isKnownUniquelyReferenced` on the way down
    /// from the root, copying whatever is shared), so a node reachable from two values
    /// is never modified.
    final class Node: ManagedBuffer<NodeHeader, Element> {
        deinit {
            _ = withUnsafeMutablePointers { header, elements in
                elements.deinitialize(count: header.pointee.elementCount)
            }
        }
    }
}

extension OrderedIndex.Node {
    /// A new node with room for `capacity` elements, holding none yet and these children
    /// (with no elements, the totals are the children's).
    ///
    /// - Complexity: O(`children.count`).
    static func make(capacity: Int, children: ContiguousArray<OrderedIndex.Node> = []) -> OrderedIndex.Node {
        var count = 0, marked = 0
        var childCounts = ContiguousArray<Int>()
        if !children.isEmpty {
            childCounts.reserveCapacity(children.capacity)
            for child in children {
                count += child.count
                marked += child.markedCount
                childCounts.append(child.count)
            }
        }
        let buffer = create(minimumCapacity: capacity) { _ in
            OrderedIndex.NodeHeader(elementCount: 0, capacity: capacity, count: count, markedCount: marked,
                                    children: children, childCounts: childCounts)
        }
        return unsafeDowncast(buffer, to: OrderedIndex.Node.self)
    }

    // The fields and elements are read and written through pointers into the node's own
    // allocation, which stays valid while the caller holds the node, as it does to call
    // these. Through `ManagedBuffer.header`, every access would also pay the runtime's
    // exclusivity check; a node is written only through the index value that uniquely owns it,
    // which an `inout` access to that value already makes exclusive.

    /// The node's fields.
    @inline(__always)
    private var fields: UnsafeMutablePointer<OrderedIndex.NodeHeader> {
        withUnsafeMutablePointerToHeader { $0 }
    }

    /// The node's own elements, in order: its storage's first `elementCount` slots.
    ///
    /// The buffer is valid while the node is alive; writing through it is for a node
    /// that is uniquely referenced.
    @inline(__always)
    var elements: UnsafeMutableBufferPointer<Element> {
        UnsafeMutableBufferPointer(start: withUnsafeMutablePointerToElements { $0 }, count: fields.pointee.elementCount)
    }

    /// The first slot of the node's element storage.
    @inline(__always)
    private var storage: UnsafeMutablePointer<Element> { withUnsafeMutablePointerToElements { $0 } }

    /// How many elements the node holds.
    @inline(__always)
    var elementCount: Int { fields.pointee.elementCount }

    /// How many elements the node's storage has room for.
    @inline(__always)
    var storageCapacity: Int { fields.pointee.capacity }

    /// The number of elements in this subtree.
    @inline(__always)
    var count: Int {
        get { fields.pointee.count }
        _modify { yield &fields.pointee.count }
    }

    /// The number of marked elements in this subtree.
    @inline(__always)
    var markedCount: Int {
        get { fields.pointee.markedCount }
        _modify { yield &fields.pointee.markedCount }
    }

    /// The children of an internal node (`elementCount + 1` of them); empty for a leaf.
    @inline(__always)
    var children: ContiguousArray<OrderedIndex.Node> {
        _read { yield fields.pointee.children }
        _modify { yield &fields.pointee.children }
    }

    /// The element count of each child's subtree.
    @inline(__always)
    var childCounts: ContiguousArray<Int> {
        _read { yield fields.pointee.childCounts }
        _modify { yield &fields.pointee.childCounts }
    }

    /// Whether the node has no children.
    @inline(__always)
    var isLeaf: Bool { fields.pointee.children.isEmpty }

    // MARK: Elements

    /// Adds an element after the node's last one; the storage must have room. The
    /// subtree totals are the caller's to update.
    @inline(__always)
    func appendElement(_ element: Element) {
        let n = fields.pointee.elementCount
        precondition(n < fields.pointee.capacity, "OrderedIndex node storage is full")
        (storage + n).initialize(to: element)
        fields.pointee.elementCount = n + 1
    }

    /// Inserts an element at slot `i`, shifting the later ones up; the storage must have
    /// room. The subtree totals are the caller's to update.
    @inline(__always)
    func insertElement(_ element: Element, at i: Int) {
        let n = fields.pointee.elementCount
        precondition(n < fields.pointee.capacity && i >= 0 && i <= n, "OrderedIndex node insertion out of range")
        let slot = storage + i
        (slot + 1).moveInitialize(from: slot, count: n - i)
        slot.initialize(to: element)
        fields.pointee.elementCount = n + 1
    }

    /// Removes and returns the element at slot `i`, shifting the later ones down. The
    /// subtree totals are the caller's to update.
    @inline(__always)
    func removeElement(at i: Int) -> Element {
        let n = fields.pointee.elementCount
        precondition(i >= 0 && i < n, "OrderedIndex node removal out of range")
        let slot = storage + i
        let removed = slot.move()
        slot.moveInitialize(from: slot + 1, count: n - i - 1)
        fields.pointee.elementCount = n - 1
        return removed
    }

    /// Moves the elements in slots `range` of `source` to the end of this node's, which
    /// must have room. The slots are left uninitialised: the caller moves every element
    /// out of `source` and then calls ``abandonElements()`` on it. The subtree totals of
    /// both are the caller's to update.
    func appendElements(moving source: OrderedIndex.Node, _ range: Range<Int>) {
        let n = fields.pointee.elementCount
        precondition(n + range.count <= fields.pointee.capacity && range.upperBound <= source.elementCount,
                     "OrderedIndex node move out of range")
        (storage + n).moveInitialize(from: source.storage + range.lowerBound, count: range.count)
        fields.pointee.elementCount = n + range.count
    }

    /// Moves the element out of slot `i`, leaving it uninitialised (see
    /// ``appendElements(moving:_:)``).
    @inline(__always)
    func moveElement(at i: Int) -> Element {
        precondition(i >= 0 && i < fields.pointee.elementCount, "OrderedIndex node slot out of range")
        return (storage + i).move()
    }

    /// Forgets the node's elements, every one of which has been moved out.
    func abandonElements() {
        fields.pointee.elementCount = 0
    }

    /// Replaces the element at slot `i` and returns the one it replaced. The subtree
    /// totals are the caller's to update.
    @inline(__always)
    func replaceElement(at i: Int, with element: Element) -> Element {
        precondition(i >= 0 && i < fields.pointee.elementCount, "OrderedIndex node slot out of range")
        let old = (storage + i).move()
        (storage + i).initialize(to: element)
        return old
    }

    /// Copies `elements` to the end of this node's, which must have room.
    func appendElements(copying elements: UnsafeBufferPointer<Element>) {
        let n = fields.pointee.elementCount
        precondition(n + elements.count <= fields.pointee.capacity, "OrderedIndex node storage is full")
        if let source = elements.baseAddress {
            (storage + n).initialize(from: source, count: elements.count)
        }
        fields.pointee.elementCount = n + elements.count
    }

    /// Appends all of `source`'s elements after this node's last one: moved out of it
    /// when `moving` (it must be uniquely referenced; it is left without elements, and
    /// nothing they refer to is retained), copied otherwise. The subtree totals are the
    /// caller's to update.
    func appendElements(of source: OrderedIndex.Node, moving: Bool) {
        if moving {
            appendElements(moving: source, 0..<source.elementCount)
            source.abandonElements()
        } else {
            appendElements(copying: UnsafeBufferPointer(source.elements))
        }
    }

    /// Adds the element count and marked count of `elements` to this node's subtree totals.
    func countIn(_ elements: UnsafeMutableBufferPointer<Element>) {
        var marked = 0
        for element in elements where element.isMarked { marked += 1 }
        fields.pointee.count += elements.count
        fields.pointee.markedCount += marked
    }

    // MARK: Copies

    /// A new node with the same contents and room for `room` more elements (up to a full
    /// node), sharing the children: it replaces this node in the new version of a tree.
    ///
    /// The copy reserves what the original does (never more than a full node), or more
    /// where `room` needs it. When `moving`, this node must be uniquely referenced and
    /// about to be dropped: its elements and children are moved, not copied (no retain
    /// of what they refer to), and it is left empty.
    func copy(room: Int, nodeCapacity: Int, moving: Bool) -> OrderedIndex.Node {
        let n = elementCount
        var capacity = Swift.min(nodeCapacity, Swift.max(storageCapacity, n))
        // A full node that gets one more splits instead: no storage past a full node.
        if n + room > capacity && n + room <= nodeCapacity {
            capacity = Self.grownCapacity(for: n + room, nodeCapacity: nodeCapacity)
        }
        let copy = Self.make(capacity: capacity)
        copy.count = count
        copy.markedCount = markedCount
        copy.appendElements(of: self, moving: moving)
        if moving {
            swap(&copy.fields.pointee.children, &fields.pointee.children)
            swap(&copy.fields.pointee.childCounts, &fields.pointee.childCounts)
            fields.pointee.count = 0
            fields.pointee.markedCount = 0
        } else if !isLeaf {
            let childCapacity = Swift.min(nodeCapacity + 1, Swift.max(children.capacity, children.count))
            copy.children.reserveCapacity(childCapacity)
            copy.children.append(contentsOf: children)
            copy.childCounts.reserveCapacity(childCapacity)
            copy.childCounts.append(contentsOf: childCounts)
        }
        return copy
    }

    /// The storage to reserve for `needed` elements: a quarter more (at least four
    /// more) for the insertions to come, but never more than a full node.
    ///
    /// Nodes grow by this rule instead of doubling, so a node holds little more storage
    /// than it has elements (half-full nodes after a split, or after appends at the end,
    /// do not keep storage for a full node).
    static func grownCapacity(for needed: Int, nodeCapacity: Int) -> Int {
        Swift.max(needed, Swift.min(nodeCapacity, needed + Swift.max(4, needed / 4)))
    }

    /// Whether `extra` more elements fit in the node's storage, or would take it over
    /// a full node (and so split it instead).
    @inline(__always)
    func hasRoom(for extra: Int, nodeCapacity: Int) -> Bool {
        let needed = elementCount + extra
        return needed <= storageCapacity || needed > nodeCapacity
    }

    /// Makes child `i` uniquely referenced by this node, with room for `room` more
    /// elements (see ``hasRoom(for:nodeCapacity:)``), and returns it: a copy if it was
    /// shared, a larger one if it had no room. This node must itself be uniquely referenced.
    @inline(__always)
    func uniqueChild(_ i: Int, room: Int = 0, nodeCapacity: Int) -> OrderedIndex.Node {
        let isUnique = isKnownUniquelyReferenced(&fields.pointee.children[i])
        let child = fields.pointee.children[i]
        if isUnique && child.hasRoom(for: room, nodeCapacity: nodeCapacity) { return child }
        let copy = child.copy(room: room, nodeCapacity: nodeCapacity, moving: isUnique)
        fields.pointee.children[i] = copy
        return copy
    }

    // MARK: Positions

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
        fields.pointee.childCounts.withUnsafeBufferPointer { counts in
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

    /// ``slot(containing:)``, taken from the step of `path` at `depth` when there is one
    /// (the path must come from a walk of this index since it last changed).
    ///
    /// A step whose child is not in this node, or whose offset falls outside that child,
    /// is not used; that only keeps a wrong step within the node's bounds, since a stale
    /// step can still fall inside them. A debug build checks every step used against
    /// ``slot(containing:)``.
    @inline(__always)
    func slot(containing position: Int, along path: OrderedIndex.Path, depth: Int) -> (slot: Int, offset: Int) {
        if let step = path.step(at: depth) {
            let offset = position &- step.before
            let holds = fields.pointee.childCounts.withUnsafeBufferPointer { counts in
                UInt(bitPattern: step.child) < UInt(counts.count) && offset >= 0 && offset <= counts[step.child]
            }
            if holds {
                assert(slot(containing: position) == (step.child, offset), "a path step from another index")
                return (step.child, offset)
            }
        }
        return slot(containing: position)
    }

    /// The number of elements before child `i`'s subtree in this internal node's
    /// subtree: the children before it and their separators.
    ///
    /// - Complexity: O(`i`), over one array.
    @inline(__always)
    func elementsBefore(child i: Int) -> Int {
        fields.pointee.childCounts.withUnsafeBufferPointer { counts in
            var total = i
            for k in 0..<i { total &+= counts[k] }
            return total
        }
    }
}
