extension Array {
    /// Removes every element and keeps the storage, for a working array used again.
    ///
    /// `removeAll(keepingCapacity: true)` goes through `replaceSubrange`, which costs more
    /// than destroying the one or two elements a command leaves in each of a batch's
    /// working arrays (up to nine a command). Up to four elements are therefore removed
    /// one by one from the end, more through `removeAll(keepingCapacity:)`.
    ///
    /// As with `removeLast()`, an array whose storage is shared with another gets storage
    /// of its own, for its elements only: the callers own theirs.
    /// - Complexity: O(*n*) for *n* elements.
    @inlinable
    package mutating func removeAllKeepingStorage() {
        if count > 4 {
            removeAll(keepingCapacity: true)
        } else {
            while !isEmpty { removeLast() }
        }
    }
}
