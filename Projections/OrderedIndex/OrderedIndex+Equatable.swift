extension OrderedIndex: Equatable where Element: Equatable {
    /// Whether two indexes hold equal elements in the same order.
    ///
    /// The shape of the trees does not matter.
    ///
    /// - Complexity: O(1) when the counts differ or both values share their root;
    ///   otherwise O(*n*).
    package static func == (lhs: OrderedIndex, rhs: OrderedIndex) -> Bool {
        if lhs.count != rhs.count { return false }
        if lhs.root === rhs.root { return true }
        return lhs.elementsEqual(rhs)
    }
}
