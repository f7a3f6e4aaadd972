extension OrderedIndex {
    /// Describes every broken B-tree invariant: wrong subtree counts, child counts or
    /// marked counts, an internal node without one more child than elements, leaves at different depths,
    /// a non-root node less than half full, or any node over capacity (in elements or in
    /// storage). Empty when the
    /// tree is sound. For tests.
    ///
    /// - Complexity: O(*n*).
    func invariantViolations() -> [String] {
        var violations: [String] = []
        var leafDepth: Int?
        func check(_ node: Node, depth: Int, path: String) {
            let isRoot = depth == 0
            if node.elements.count > nodeCapacity {
                violations.append("\(path): \(node.elements.count) elements, over capacity \(nodeCapacity)")
            }
            if node.storageCapacity > nodeCapacity {
                violations.append("\(path): storage for \(node.storageCapacity) elements, over capacity \(nodeCapacity)")
            }
            if !isRoot && node.elements.count < nodeCapacity / 2 {
                violations.append("\(path): \(node.elements.count) elements, under minimum \(nodeCapacity / 2)")
            }
            var count = node.elements.count
            var marked = node.elements.reduce(0) { $0 + ($1.isMarked ? 1 : 0) }
            if node.isLeaf {
                if let leafDepth, leafDepth != depth {
                    violations.append("\(path): leaf at depth \(depth), another at \(leafDepth)")
                }
                leafDepth = depth
            } else {
                if node.children.count != node.elements.count + 1 {
                    violations.append("\(path): \(node.elements.count) elements but \(node.children.count) children")
                }
                if isRoot && node.elements.isEmpty {
                    violations.append("\(path): internal root without elements")
                }
                if node.childCounts.count != node.children.count {
                    violations.append("\(path): \(node.childCounts.count) child counts for \(node.children.count) children")
                }
                for (i, child) in node.children.enumerated() {
                    check(child, depth: depth + 1, path: "\(path)/\(i)")
                    if i < node.childCounts.count && node.childCounts[i] != child.count {
                        violations.append("\(path): child \(i) counted \(node.childCounts[i]), actually \(child.count)")
                    }
                    count += child.count
                    marked += child.markedCount
                }
            }
            if count != node.count {
                violations.append("\(path): count \(node.count), actually \(count)")
            }
            if marked != node.markedCount {
                violations.append("\(path): markedCount \(node.markedCount), actually \(marked)")
            }
        }
        check(root, depth: 0, path: "root")
        return violations
    }

    /// The identities of all nodes of the tree, to observe structural sharing. For tests.
    ///
    /// - Complexity: O(number of nodes).
    func nodeIdentities() -> Set<ObjectIdentifier> {
        var identities = Set<ObjectIdentifier>()
        var pending = [root]
        while let node = pending.popLast() {
            identities.insert(ObjectIdentifier(node))
            pending.append(contentsOf: node.children)
        }
        return identities
    }

    /// The number of levels of the tree (1 for a single leaf). For tests.
    var height: Int {
        var levels = 1
        var node = root
        while !node.isLeaf {
            levels += 1
            node = node.children[0]
        }
        return levels
    }
}
