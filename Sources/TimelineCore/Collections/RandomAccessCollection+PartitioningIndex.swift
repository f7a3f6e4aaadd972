extension RandomAccessCollection {
    /// The index of the first element for which `isInSecondPartition` holds, where it is
    /// false for a prefix of the collection and true for the rest; `endIndex` when it holds
    /// for none: a binary search.
    ///
    /// In a collection sorted by a key, `partitioningIndex { $0.key >= key }` is where `key`
    /// is, or would be inserted.
    /// - Complexity: O(log *n*) calls of `isInSecondPartition`.
    @inlinable
    package func partitioningIndex(where isInSecondPartition: (Element) throws -> Bool) rethrows -> Index {
        var low = startIndex
        var remaining = count
        while remaining > 0 {
            let half = remaining / 2
            let middle = index(low, offsetBy: half)
            if try isInSecondPartition(self[middle]) {
                remaining = half
            } else {
                low = index(after: middle)
                remaining -= half + 1
            }
        }
        return low
    }
}
