extension OrderedIndex {
    /// One internal node's step on a walk from the root: the child the walk went down,
    /// and how many elements of the node's subtree come before that child's subtree.
    struct PathStep {
        var child: Int
        var before: Int
    }

    /// The steps of a walk from the root (``partitionIndex(splittingNodes:recording:_:)``),
    /// for the insertion, removal or update at the position that walk found.
    ///
    /// A mutation at a position finds its child in each internal node by summing the
    /// children's counts (``Node/slot(containing:)``), as the walk that found the position
    /// had just done; the path records the walk's steps so that they are not summed twice.
    ///
    /// A path is valid for the index it was recorded on, until that index changes: the
    /// change that follows the walk must be its only use. A step is checked against the
    /// node's bounds only (a stale step can fall within them), and a debug build checks
    /// every step used against the sum.
    struct Path {
        /// The steps, from the root down; fewer than the internal nodes when the walk's
        /// storage ran out.
        let steps: UnsafeBufferPointer<PathStep>

        /// No steps: every child is found by summing counts.
        static var none: Path { Path(steps: UnsafeBufferPointer(start: nil, count: 0)) }

        /// Room for a walk's steps in an index of the default node size: a non-root
        /// internal node of the smallest (16 elements) has at least 9 children, so 2⁶³
        /// elements need fewer than 22 internal levels. Deeper steps, in an index of
        /// smaller nodes, are not recorded; their children are found by summing.
        static var capacity: Int { 24 }

        /// The step at `depth` (0 is the root), if it was recorded.
        @inline(__always)
        func step(at depth: Int) -> PathStep? { depth < steps.count ? steps[depth] : nil }
    }
}
